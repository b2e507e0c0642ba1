// Exact numbers read off the maps by eye, one per linker: calc.o of simp built with -O2
// -ffunction-sections owns a hot, a cold and a plain function, each in a section of its own.
// GNU ld and gold sort .text.unlikely/.text.hot to the front of .text; lld and mold keep input
// order.
#include "fixtures.h"

#include <gtest/gtest.h>

namespace ppe::mapparse::test {
namespace {

    struct Expected {
        const char* name;
        uint64_t address;
        uint64_t size;
    };

    void expectSections(const char* file, Dialect dialect, std::vector<Expected> expected)
    {
        const auto map = parseLinkMap(readFile(mapsDir() + "/" + file), file);
        ASSERT_TRUE(map) << map.error().str();
        EXPECT_EQ(map->dialect, dialect);
        const Module* calc = findModule(*map, "calc.o");
        ASSERT_NE(calc, nullptr);
        ASSERT_EQ(calc->sections.size(), expected.size());
        for (std::size_t i = 0; i < expected.size(); ++i) {
            EXPECT_EQ(calc->sections[i].name, expected[i].name);
            EXPECT_EQ(calc->sections[i].outputSection, ".text");
            EXPECT_EQ(calc->sections[i].address, expected[i].address) << expected[i].name;
            EXPECT_EQ(calc->sections[i].size, expected[i].size) << expected[i].name;
        }
        EXPECT_EQ(calc->codeSize(), 0x20u + 0x1fu + 0x3au);
    }

    TEST(KnownLayout, GnuLd)
    {
        // " .text.unlikely.usage" on a line of its own, its numbers on the next: a wrapped name.
        expectSections("simp-O2-ffs-pie.gnuld.map", Dialect::GnuLd,
            { { ".text.unlikely.usage", 0x1070, 0x20 }, { ".text.hot.isqrtll", 0x11b0, 0x1f },
                { ".text.checksum", 0x12c0, 0x3a } });
    }

    TEST(KnownLayout, Gold)
    {
        expectSections("simp-O2-ffs-pie.gold.map", Dialect::Gold,
            { { ".text.unlikely.usage", 0x6a0, 0x20 }, { ".text.hot.isqrtll", 0x7e0, 0x1f },
                { ".text.checksum", 0x900, 0x3a } });
    }

    TEST(KnownLayout, Lld)
    {
        expectSections("simp-O2-ffs-pie.lld.map", Dialect::Lld,
            { { ".text.hot.isqrtll", 0x19f0, 0x1f }, { ".text.unlikely.usage", 0x1a0f, 0x20 },
                { ".text.checksum", 0x1a30, 0x3a } });
    }

    TEST(KnownLayout, Mold)
    {
        // "0x19bf         32     1         calc.o:(.text.unlikely.usage)": the size is decimal.
        expectSections("simp-O2-ffs-pie.mold.map", Dialect::Mold,
            { { ".text.hot.isqrtll", 0x19a0, 31 }, { ".text.unlikely.usage", 0x19bf, 32 },
                { ".text.checksum", 0x19e0, 58 } });
    }

    TEST(KnownLayout, OptimisedCodeGoesToStartupHotAndUnlikelySections)
    {
        for (const char* linker : { "gnuld", "gold", "lld", "mold" }) {
            const std::string file = std::string("simp-O2-nopie.") + linker + ".map";
            const auto map = parseLinkMap(readFile(mapsDir() + "/" + file), file);
            ASSERT_TRUE(map) << map.error().str();
            const Module* simp = findModule(*map, "simp.o");
            const Module* calc = findModule(*map, "calc.o");
            ASSERT_TRUE(simp && calc) << file;
            ASSERT_EQ(simp->sections.size(), 1u) << file;
            EXPECT_EQ(simp->sections[0].name, ".text.startup") << file;
            ASSERT_EQ(calc->sections.size(), 3u) << file;
            std::vector<std::string> names;
            for (const Section& s : calc->sections)
                names.push_back(s.name);
            std::sort(names.begin(), names.end());
            EXPECT_EQ(names, (std::vector<std::string> { ".text", ".text.hot", ".text.unlikely" })) << file;
        }
    }

    TEST(KnownLayout, FortranModulesAreTheirObjects)
    {
        const auto map = parseLinkMap(readFile(mapsDir() + "/ktest-O2-nopie.gnuld.map"), "ktest-O2-nopie.gnuld.map");
        ASSERT_TRUE(map) << map.error().str();
        for (const char* name : { "ktest.o", "kmod.o", "ksub.o" }) {
            const Module* m = findModule(*map, name);
            ASSERT_NE(m, nullptr) << name;
            EXPECT_EQ(m->path, name);
        }
        EXPECT_EQ(findModule(*map, "ktest.o")->sections.size(), 2u); // .text (MAIN__), .text.startup (main)
    }

    // Code the linker makes itself has no object to belong to. On x86-64 these linkers put it in
    // sections not named like code (.plt, .plt.got, .iplt), so each real map gets one extra line
    // where ARM and PowerPC maps have them: range-extension thunks in .text.
    struct LinkerMadeCode {
        const char* file;
        const char* after; // the new line goes after the line ending with this
        const char* line;
        const char* path;
    };

    class LinkerMadeCodeTest : public ::testing::TestWithParam<LinkerMadeCode> { };

    void PrintTo(const LinkerMadeCode& c, std::ostream* out) { *out << c.file; }

    TEST_P(LinkerMadeCodeTest, IsNoModule)
    {
        const LinkerMadeCode& c = GetParam();
        std::string text = readFile(mapsDir() + "/" + c.file);
        const std::size_t at = text.find(std::string(c.after) + "\n");
        ASSERT_NE(at, std::string::npos);
        text.insert(at + std::string(c.after).size() + 1, std::string(c.line) + "\n");
        const auto map = parseLinkMap(text, c.file);
        ASSERT_TRUE(map) << map.error().str();
        for (const Module& m : map->modules)
            EXPECT_NE(m.path, c.path);
        EXPECT_NE(findModule(*map, "simp.o"), nullptr);
    }

    INSTANTIATE_TEST_SUITE_P(Maps, LinkerMadeCodeTest,
        ::testing::Values(LinkerMadeCode { "simp-O0-pie.gnuld.map", "crtn.o",
                              " .text          0x00000000000013cc       0x10 linker stubs", "linker stubs" },
            LinkerMadeCode { "simp-O0-pie.gold.map", "crtn.o",
                " .text          0x00000000000009fc       0x10 linker stubs", "linker stubs" },
            LinkerMadeCode { "simp-O0-pie.lld.map", "crtn.o:(.text)",
                "            1b6c             1b6c       10     4         <internal>:(.text.thunk)", "<internal>" },
            LinkerMadeCode { "simp-O0-pie.mold.map", "crtn.o:(.text)",
                "            0x1b2c         16     4         <internal>:(.text.thunk)", "<internal>" }),
        [](const auto& info) { return testName(info.param.file); });

} // namespace
} // namespace ppe::mapparse::test
