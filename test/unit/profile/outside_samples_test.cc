// Format version 2 (issue 38): the collector writes the samples outside the monitored object raw
// (the PCs, the mappings that held them, the objects dlclose unloaded) and the reader attributes
// them. A version-2 file reads as the version-1 file with the same samples attributed by the
// collector's old rules (written here by hand from docs/ppe-format.md), and damaged records are one
// error each naming the line.
#include "golden_profile.h"
#include "memfd.h"
#include "profile_head.h"

#include "ppe/core/live_file.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace ppe {
namespace {

    std::string head(int version, const std::string& counts)
    {
        return test::profileHead(version, "perf-task-clock", counts);
    }

    std::string counts(uint64_t below, uint64_t above, uint64_t shared, uint64_t vdso, uint64_t anon, uint64_t unknown)
    {
        std::ostringstream out;
        out << "count in-range 1\ncount below " << below << "\ncount above " << above << "\ncount shared " << shared
            << "\ncount vdso " << vdso << "\ncount anon " << anon << "\ncount unknown " << unknown
            << "\ncount lost 2\ncount total " << 3 + below + above + shared + vdso + anon + unknown << "\n";
        return out.str();
    }

    // The raw records: a PC in the image below and above the range, in two shared objects (one of
    // two mappings), the vDSO, anonymous code and no mapping; an unloaded object loaded again
    // (its samples join the loaded one's, one offset with both) and one that was not; blocked
    // places in a shared object only a wait names, in the vDSO and in no mapping.
    const char* const kRaw = R"(mapping 0x400000 0x403000 0x0 none "/bin/prog"
mapping 0x7f0000001000 0x7f0000002000 0x1000 none "/lib/liba.so"
mapping 0x7f0000002000 0x7f0000003000 0x2000 aabb "/lib/liba.so"
mapping 0x7f0000010000 0x7f0000011000 0x0 ccdd "/lib/libb.so"
mapping 0x7f0000020000 0x7f0000021000 0x0 none ""
mapping 0x7f0000040000 0x7f0000041000 0x3000 1122 "/lib/libd.so"
mapping 0x7fff00000000 0x7fff00001000 0x0 none "[vdso]"
outside-pc 0x7f0000010010 1
outside-pc 0x7f0000001010 3
outside-pc 0x7f0000002010 4
outside-pc 0x7fff00000100 5
outside-pc 0x7f0000020100 6
outside-pc 0x9000 7
outside-pc 0x400500 8
outside-pc 0x402800 9
retired-object 0 aabb "/lib/liba.so"
retired-object 1 eeff "/lib/libold.so"
retired-hit 0 0x1010 10
retired-hit 1 0x40 11
blocked 7 1.000000000 10 0x7f0000010100 image+0x1500 5
blocked 35 0.500000000 5 0x7f0000040080 0x9999 6
blocked 0 0.250000000 1 0x7fff00000010 - 7
bin 0x1000 1
end
)";

    // What the collector wrote of the same samples before version 2.
    const char* const kAttributed = R"(object 0 1 ccdd "/lib/libb.so"
object 1 17 aabb "/lib/liba.so"
object 2 0 1122 "/lib/libd.so"
object 3 11 eeff "/lib/libold.so"
object-hit 0 0x10 1
object-hit 1 0x1010 13
object-hit 1 0x2010 4
object-hit 3 0x40 11
blocked 7 1.000000000 10 0+0x100 image+0x1500 5
blocked 35 0.500000000 5 2+0x3080 0x9999 6
blocked 0 0.250000000 1 0x7fff00000010 - 7
bin 0x1000 1
end
)";

    Profile parsed(const std::string& text)
    {
        auto p = parseProfile(text, "test.ppe");
        EXPECT_TRUE(p) << (p ? "" : p.error().str());
        return p ? *p : Profile {};
    }

    std::string place(const CodeLocation& l)
    {
        return std::to_string(int(l.kind)) + ":" + std::to_string(l.object) + ":" + std::to_string(l.address);
    }

    // Everything a Profile holds of the samples outside the range.
    std::string outsideOf(const Profile& p)
    {
        std::ostringstream out;
        for (uint64_t c : p.counts)
            out << c << " ";
        out << "total " << p.total << " achieved " << p.achievedRate << "\n";
        for (const SharedObject& o : p.objects) {
            out << "object " << o.path << " " << o.buildId << " " << o.hits << ":";
            for (const ObjectSamples& h : o.hitsByOffset)
                out << " " << h.fileOffset << "=" << h.count;
            out << "\n";
        }
        for (const BlockedPlace& b : p.blocked)
            out << "blocked " << b.syscall << " " << place(b.site) << " " << place(b.caller) << " " << b.tid << "\n";
        return out.str();
    }

    TEST(OutsideSamples, AVersion2ProfileReadsAsTheCollectorAttributedItBefore)
    {
        const Profile raw = parsed(head(2, counts(0, 0, 0, 0, 0, 0)) + kRaw);
        const Profile attributed = parsed(head(1, counts(8, 9, 29, 5, 6, 7)) + kAttributed);
        EXPECT_EQ(raw.version, 2u);
        EXPECT_EQ(attributed.version, 1u);
        EXPECT_EQ(outsideOf(raw), outsideOf(attributed));
        ASSERT_EQ(raw.objects.size(), 4u);
        EXPECT_EQ(raw.total, 67u);
    }

    TEST(OutsideSamples, Version1IgnoresTheRawRecordsAsKeysOfALaterVersion)
    {
        const Profile p = parsed(head(1, counts(0, 0, 0, 0, 0, 0)) + kRaw);
        EXPECT_TRUE(p.objects.empty());
        EXPECT_EQ(p.total, 3u);
        ASSERT_EQ(p.blocked.size(), 3u);
        EXPECT_EQ(p.blocked[0].site.kind, CodeLocation::Kind::Address) << "a version-1 address is as it is";
    }

    // The collector's table held 1024 objects; the samples of more were counted unknown.
    TEST(OutsideSamples, ObjectsBeyondTheTableAreCountedUnknown)
    {
        std::ostringstream raw;
        for (int i = 0; i < 1030; ++i)
            raw << "mapping 0x" << std::hex << 0x10000000 + i * 0x1000 << " 0x" << 0x10001000 + i * 0x1000 << std::dec
                << " 0x0 none \"/lib/l" << i << ".so\"\n";
        for (int i = 0; i < 1030; ++i)
            raw << "outside-pc 0x" << std::hex << 0x10000010 + i * 0x1000 << std::dec << " 2\n";
        const Profile p = parsed(head(2, counts(0, 0, 0, 0, 0, 0)) + raw.str() + "bin 0x1000 1\nend\n");
        EXPECT_EQ(p.objects.size(), 1024u);
        EXPECT_EQ(p.counts[kShared], 2048u);
        EXPECT_EQ(p.counts[kUnknown], 12u);
        EXPECT_EQ(p.total, 3u + 2060u);
    }

    // The writer's records (core/src/ppe_writer.cc) read back: appended to the objects a file
    // names already, their samples added to its counts.
    TEST(OutsideSamples, TheWritersRawRecordsReadBack)
    {
        const auto golden = test::makeGoldenProfile();
        const uint8_t id[] = { 0xaa, 0xbb };
        auto maps = std::make_unique<LiveMappings>();
        std::memcpy(maps->paths, "\0/lib/liba.so", 14);
        maps->pathUsed = 14;
        maps->count = 2;
        maps->mappings[0] = LiveMapping { 0x7f0000001000, 0x7f0000002000, 0x1000, 1, 2, { 0xaa, 0xbb } };
        maps->mappings[1] = LiveMapping { 0x7f0000020000, 0x7f0000021000, 0, 0, 0, {} };
        const PcSlot pcs[] = { { 0x7f0000001010, 3 }, { 0, 0 }, { 0x7f0000020100, 6 }, { 0x9000, 7 } };
        const RetiredObjectRecord retired[] = { { "/lib/liba.so", id, 2 } };
        const ObjectCountRecord retiredHits[] = { { 0, 0x1010, 10 } };
        const RawOutside outside { maps.get(), pcs, 4, retired, 1, retiredHits, 1 };
        ProfileOutput out = golden->output();
        out.raw = &outside;
        test::Memfd file;
        ASSERT_EQ(writeProfile(file.fd(), out), 0);
        const std::string text = file.contents();
        EXPECT_EQ(text.substr(0, 14), "ppe-profile 2\n");
        EXPECT_NE(
            text.find("\nmapping 0x7f0000001000 0x7f0000002000 0x1000 aabb \"/lib/liba.so\"\n"), std::string::npos);
        EXPECT_NE(text.find("\noutside-pc 0x9000 7\nretired-object 0 aabb \"/lib/liba.so\"\n"), std::string::npos);
        EXPECT_EQ(text.find("outside-pc 0x0"), std::string::npos) << "empty slots are not written";
        const Profile p = parsed(text);
        ASSERT_EQ(p.objects.size(), 3u);
        EXPECT_EQ(p.objects[2].path, "/lib/liba.so");
        EXPECT_EQ(p.objects[2].buildId, "aabb");
        EXPECT_EQ(p.objects[2].hits, 13u);
        ASSERT_EQ(p.objects[2].hitsByOffset.size(), 1u);
        EXPECT_EQ(p.objects[2].hitsByOffset[0].count, 13u);
        EXPECT_EQ(p.counts[kShared], 30u + 13u);
        EXPECT_EQ(p.counts[kAnon], 1u + 6u);
        EXPECT_EQ(p.counts[kUnknown], 4u + 7u);
    }

    void expectError(const std::string& text, size_t line, const std::string& fragment)
    {
        const Result<Profile> result = parseProfile(text, "damaged.ppe");
        ASSERT_FALSE(result.ok()) << "parsed without an error";
        EXPECT_EQ(result.error().line, line) << result.error().str();
        EXPECT_NE(result.error().message.find(fragment), std::string::npos) << result.error().str();
        EXPECT_EQ(result.error().str().find('\n'), std::string::npos);
    }

    // kRaw with line `number` (1-based, counted in kRaw) replaced.
    std::string rawWith(size_t number, const std::string& replacement)
    {
        std::vector<std::string> lines;
        std::istringstream in(kRaw);
        for (std::string line; std::getline(in, line);)
            lines.push_back(line);
        lines[number - 1] = replacement;
        std::string text = head(2, counts(0, 0, 0, 0, 0, 0));
        for (const std::string& line : lines)
            text += line + "\n";
        return text;
    }

    TEST(OutsideSamples, DamagedRecordsAreOneErrorNamingTheLine)
    {
        const size_t first = 28; // head() and counts() take 27 lines
        expectError(
            rawWith(2, "mapping 0x7f0000001000 0x7f0000001000 0x0 none \"/lib/a.so\""), first + 1, "START < END");
        expectError(rawWith(2, "mapping 0x401000 0x7f0000002000 0x0 none \"/lib/a.so\""), first + 1, "overlapping");
        expectError(rawWith(2, "mapping 0x7f0000001000 0x7f0000002000 0x0 NONE \"/lib/a.so\""), first + 1, "BUILD-ID");
        expectError(rawWith(8, "outside-pc 0x7f0000010010 0"), first + 7, "COUNT > 0");
        expectError(rawWith(8, "outside-pc 0x7f0000010010"), first + 7, "outside-pc: expected");
        expectError(rawWith(15, "retired-object 1 aabb \"/lib/liba.so\""), first + 14, "count up from 0");
        expectError(rawWith(17, "retired-hit 2 0x1010 10"), first + 16, "before its retired-object");
        expectError(rawWith(17, "retired-hit 0 1010 10"), first + 16, "retired-hit: expected");
    }

    TEST(OutsideSamples, MappingRecordsAreCapped)
    {
        std::ostringstream raw;
        for (int i = 0; i <= 4096; ++i)
            raw << "mapping 0x" << std::hex << 0x10000000 + i * 0x1000 << " 0x" << 0x10001000 + i * 0x1000 << std::dec
                << " 0x0 none \"\"\n";
        expectError(head(2, counts(0, 0, 0, 0, 0, 0)) + raw.str() + "bin 0x1000 1\nend\n", 28 + 4096,
            "more than 4096 'mapping' records");
        const std::string path(60000, 'p');
        std::string paths;
        for (int i = 0; i < 5; ++i)
            paths += "mapping 0x" + std::to_string(i + 1) + "000 0x" + std::to_string(i + 1) + "800 0x0 none \"/" + path
                + std::to_string(i) + "\"\n";
        expectError(head(2, counts(0, 0, 0, 0, 0, 0)) + paths, 28 + 4, "more than 256 KiB of 'mapping' paths");
    }

} // namespace
} // namespace ppe
