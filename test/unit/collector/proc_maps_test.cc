// /proc/self/maps read into fixed tables: the test's own code and libc are found where the kernel
// says they are; lookups outside every mapping find nothing; small tables say they are truncated.
#include "proc_maps.h"

#include <gtest/gtest.h>

#include <dlfcn.h>
#include <filesystem>
#include <string>
#include <vector>

namespace ppe {
namespace {

    // A function of this test, not inlined or merged away.
    __attribute__((noinline)) int functionOfTheTest(int x) { return x * 3 + 1; }

    // Tables sized like the collector's, with storage that lives as long as the table.
    struct Maps {
        std::vector<Mapping> mappings;
        std::vector<char> paths;
        MapsTable table {};

        Maps(size_t mappingCapacity, size_t pathCapacity)
            : mappings(mappingCapacity)
            , paths(pathCapacity)
        {
            table.mappings = mappings.data();
            table.mappingCapacity = mappings.size();
            table.paths = paths.data();
            table.pathCapacity = paths.size();
        }

        std::string pathOf(const Mapping& m) const { return table.paths + m.path; }
    };

    uintptr_t libcAddress()
    {
        // Not intercepted by the sanitizers' runtimes, so the address is libc's own.
        return reinterpret_cast<uintptr_t>(dlsym(RTLD_DEFAULT, "gnu_get_libc_version"));
    }

    TEST(ProcMaps, FindsTheTestsOwnCode)
    {
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        EXPECT_FALSE(maps.table.truncated);
        const uintptr_t address = reinterpret_cast<uintptr_t>(&functionOfTheTest);
        const Mapping* m = findMapping(maps.table, address);
        ASSERT_NE(m, nullptr);
        EXPECT_LE(m->start, address);
        EXPECT_LT(address, m->end);
        EXPECT_TRUE(m->executable);
        EXPECT_TRUE(m->readable);
        EXPECT_EQ(maps.pathOf(*m), std::filesystem::read_symlink("/proc/self/exe").string());
        EXPECT_EQ(m->offset % 4096, 0u);
        EXPECT_EQ(functionOfTheTest(2), 7);
    }

    int g_dataOfTheTest = 42;

    TEST(ProcMaps, DataIsReadableButNotExecutable)
    {
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        const Mapping* m = findMapping(maps.table, reinterpret_cast<uintptr_t>(&g_dataOfTheTest));
        ASSERT_NE(m, nullptr);
        EXPECT_FALSE(m->executable);
        EXPECT_TRUE(m->readable);
        EXPECT_EQ(maps.pathOf(*m), std::filesystem::read_symlink("/proc/self/exe").string());
        EXPECT_EQ(g_dataOfTheTest, 42);
    }

    TEST(ProcMaps, FindsLibc)
    {
        const uintptr_t address = libcAddress();
        ASSERT_NE(address, 0u) << dlerror();
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        const Mapping* m = findMapping(maps.table, address);
        ASSERT_NE(m, nullptr);
        EXPECT_TRUE(m->executable);
        EXPECT_NE(maps.pathOf(*m).find("libc"), std::string::npos) << maps.pathOf(*m);
    }

    TEST(ProcMaps, MappingsAscendAndDoNotOverlap)
    {
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        ASSERT_GT(maps.table.mappingCount, 4u);
        for (size_t i = 0; i < maps.table.mappingCount; ++i) {
            const Mapping& m = maps.table.mappings[i];
            EXPECT_LT(m.start, m.end) << i;
            if (i) {
                EXPECT_LE(maps.table.mappings[i - 1].end, m.start) << i;
            }
            EXPECT_LT(m.path, maps.table.pathUsed) << i;
        }
        EXPECT_EQ(maps.table.paths[0], '\0') << "offset 0 is the anonymous path \"\"";
    }

    TEST(ProcMaps, AdjacentMappingsOfOneFileShareTheirPath)
    {
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        for (size_t i = 1; i < maps.table.mappingCount; ++i) {
            const Mapping& previous = maps.table.mappings[i - 1];
            const Mapping& m = maps.table.mappings[i];
            if (m.path && maps.pathOf(m) == maps.pathOf(previous)) {
                EXPECT_EQ(m.path, previous.path) << maps.pathOf(m);
            }
        }
    }

    TEST(ProcMaps, EveryMappingIsFoundAtItsBoundaries)
    {
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        for (size_t i = 0; i < maps.table.mappingCount; ++i) {
            const Mapping& m = maps.table.mappings[i];
            EXPECT_EQ(findMapping(maps.table, m.start), &m);
            EXPECT_EQ(findMapping(maps.table, m.end - 1), &m);
            const bool nextIsAdjacent = i + 1 < maps.table.mappingCount && maps.table.mappings[i + 1].start == m.end;
            EXPECT_EQ(findMapping(maps.table, m.end), nextIsAdjacent ? &m + 1 : nullptr);
        }
    }

    TEST(ProcMaps, NothingBelowTheFirstOrAboveTheLastMapping)
    {
        Maps maps(4096, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        ASSERT_GT(maps.table.mappings[0].start, 0u);
        EXPECT_EQ(findMapping(maps.table, 0), nullptr);
        EXPECT_EQ(findMapping(maps.table, maps.table.mappings[0].start - 1), nullptr);
        const Mapping& last = maps.table.mappings[maps.table.mappingCount - 1];
        const Mapping* expected = last.end == UINTPTR_MAX ? &last : nullptr;
        EXPECT_EQ(findMapping(maps.table, UINTPTR_MAX), expected);
    }

    TEST(ProcMaps, TinyMappingTableIsTruncated)
    {
        Maps maps(2, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        EXPECT_TRUE(maps.table.truncated);
        EXPECT_EQ(maps.table.mappingCount, 2u);
        EXPECT_LT(maps.table.mappings[0].start, maps.table.mappings[1].start);
    }

    TEST(ProcMaps, TinyPathArenaIsTruncated)
    {
        Maps maps(4096, 8);
        ASSERT_TRUE(readMaps(&maps.table));
        EXPECT_TRUE(maps.table.truncated);
        EXPECT_GT(maps.table.mappingCount, 4u) << "mappings are kept without their paths";
        EXPECT_LE(maps.table.pathUsed, 8u);
        const Mapping* own = findMapping(maps.table, reinterpret_cast<uintptr_t>(&functionOfTheTest));
        ASSERT_NE(own, nullptr);
        EXPECT_TRUE(own->executable);
    }

    TEST(ProcMaps, ReadingAgainStartsOver)
    {
        Maps maps(2, 1 << 16);
        ASSERT_TRUE(readMaps(&maps.table));
        ASSERT_TRUE(maps.table.truncated);
        maps.mappings.resize(4096);
        maps.table.mappings = maps.mappings.data();
        maps.table.mappingCapacity = maps.mappings.size();
        ASSERT_TRUE(readMaps(&maps.table));
        EXPECT_FALSE(maps.table.truncated);
        EXPECT_GT(maps.table.mappingCount, 4u);
    }

    TEST(FindMapping, BinarySearchOverAHandMadeTable)
    {
        Mapping mappings[] = {
            { 0x1000, 0x2000, 0, 0, false, true },
            { 0x2000, 0x3000, 0x1000, 0, true, true },
            { 0x5000, 0x6000, 0, 0, false, true },
            { 0x8000, 0x9000, 0, 0, true, true },
        };
        char paths[1] = { '\0' };
        const MapsTable table { mappings, 4, 4, paths, 1, 1, false };
        EXPECT_EQ(findMapping(table, 0), nullptr);
        EXPECT_EQ(findMapping(table, 0xfff), nullptr);
        EXPECT_EQ(findMapping(table, 0x1000), &mappings[0]);
        EXPECT_EQ(findMapping(table, 0x1fff), &mappings[0]);
        EXPECT_EQ(findMapping(table, 0x2000), &mappings[1]);
        EXPECT_EQ(findMapping(table, 0x2fff), &mappings[1]);
        EXPECT_EQ(findMapping(table, 0x3000), nullptr);
        EXPECT_EQ(findMapping(table, 0x4fff), nullptr);
        EXPECT_EQ(findMapping(table, 0x5800), &mappings[2]);
        EXPECT_EQ(findMapping(table, 0x6000), nullptr);
        EXPECT_EQ(findMapping(table, 0x8fff), &mappings[3]);
        EXPECT_EQ(findMapping(table, 0x9000), nullptr);
        EXPECT_EQ(findMapping(table, UINTPTR_MAX), nullptr);
        const MapsTable empty { mappings, 4, 0, paths, 1, 1, false };
        EXPECT_EQ(findMapping(empty, 0x1000), nullptr);
    }

} // namespace
} // namespace ppe

// The fields after the command, whose name may hold spaces and parentheses, count from its last ')'.
TEST(StatField, CountsFromTheLastParenthesisOfTheCommand)
{
    const char stat[] = "4242 (a (b) c) S 1 4242 4200 0 -1 4194560 1 2 3 4 5 6 7 8 20 0 1 0 987654 10";
    const size_t n = sizeof(stat) - 1;
    EXPECT_EQ(ppe::statField(stat, n, 4), 1u); // parent
    EXPECT_EQ(ppe::statField(stat, n, 5), 4242u); // process group
    EXPECT_EQ(ppe::statField(stat, n, 6), 4200u); // session
    EXPECT_EQ(ppe::statField(stat, n, 22), 987654u); // start time
    EXPECT_EQ(ppe::statField(stat, n, 40), 0u); // past the end
    EXPECT_EQ(ppe::statField("no command", 10, 5), 0u);
}
