// The .ppe reader on damaged files: each problem is one Error with the file, the line (0 when the
// problem is the file as a whole) and a one-line message.
#include "golden_profile.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ppe {
namespace {

    using test::kGoldenLines;
    using test::kGoldenText;

    std::vector<std::string> goldenLines()
    {
        std::vector<std::string> lines;
        size_t at = 0;
        while (at < kGoldenText.size()) {
            const size_t newline = kGoldenText.find('\n', at);
            lines.emplace_back(kGoldenText.substr(at, newline - at));
            at = newline + 1;
        }
        return lines;
    }

    std::string join(const std::vector<std::string>& lines)
    {
        std::string text;
        for (const std::string& line : lines)
            text += line + "\n";
        return text;
    }

    // The golden text with line `number` (1-based) replaced.
    std::string withLine(size_t number, const std::string& replacement)
    {
        std::vector<std::string> lines = goldenLines();
        EXPECT_LE(number, lines.size());
        lines[number - 1] = replacement;
        return join(lines);
    }

    std::string withoutLine(size_t number)
    {
        std::vector<std::string> lines = goldenLines();
        lines.erase(lines.begin() + ptrdiff_t(number - 1));
        return join(lines);
    }

    // The golden text with `line` inserted after line `number`.
    std::string withLineAfter(size_t number, const std::string& line)
    {
        std::vector<std::string> lines = goldenLines();
        lines.insert(lines.begin() + ptrdiff_t(number), line);
        return join(lines);
    }

    void expectError(std::string_view text, size_t line, const std::string& fragment)
    {
        const Result<Profile> result = parseProfile(text, "damaged.ppe");
        ASSERT_FALSE(result.ok()) << "parsed without an error";
        const Error& e = result.error();
        EXPECT_EQ(e.file, "damaged.ppe");
        EXPECT_EQ(e.line, line) << e.str();
        EXPECT_NE(e.message.find(fragment), std::string::npos) << e.str();
        ASSERT_FALSE(e.message.empty());
        EXPECT_EQ(e.message.find('\n'), std::string::npos) << "one line: " << e.str();
        EXPECT_FALSE(e.message[0] >= 'A' && e.message[0] <= 'Z') << "starts lower-case: " << e.str();
        EXPECT_NE(e.message.back(), '.') << "no final period: " << e.str();
        const std::string where = line ? "damaged.ppe:" + std::to_string(line) + ": " : "damaged.ppe: ";
        EXPECT_EQ(e.str(), where + e.message);
    }

    TEST(ProfileReader, GoldenLinesAreWhereTheTestsExpectThem)
    {
        const std::vector<std::string> lines = goldenLines();
        ASSERT_EQ(lines.size(), kGoldenLines);
        EXPECT_EQ(lines[8], "pid 4242");
        EXPECT_EQ(lines[15], "load-bias 0x555555554000");
        EXPECT_EQ(lines[30], "count in-range 4294967306");
        EXPECT_EQ(lines[39], "count total 4294967371");
        EXPECT_EQ(lines[42], "object-hit 0 0x1a2b0 15");
        EXPECT_EQ(lines[45], "bin 0x1000 3");
        EXPECT_EQ(lines[48], "end");
        EXPECT_TRUE(parseProfile(join(lines), "golden.ppe").ok());
    }

    TEST(ProfileReader, EmptyText) { expectError("", 0, "empty"); }

    TEST(ProfileReader, BinaryBytes)
    {
        const char nulInAString[] = "ppe-profile 1\nproducer \"x\0y\"\n";
        expectError(std::string(nulInAString, sizeof(nulInAString) - 1), 0, "binary data: not a ppe profile");
        const char elf[] = "\x7f"
                           "ELF\x02\x01\x01\0\0\0";
        expectError(std::string(elf, sizeof(elf) - 1), 0, "binary data");
    }

    TEST(ProfileReader, LinkerMapIsNotAProfile)
    {
        expectError("Archive member included to satisfy reference by file (symbol)\n\n/usr/lib/libc.a(a.o)\n", 1,
            "not a ppe profile");
        expectError("ppe-profile\n", 1, "not a ppe profile");
        expectError("ppe-profile 1 extra\n", 1, "not a ppe profile");
    }

    TEST(ProfileReader, NewerVersionIsRefused)
    {
        expectError(withLine(1, "ppe-profile 4"), 1, "newer");
        expectError(withLine(1, "ppe-profile 4"), 1, "version 4");
    }

    TEST(ProfileReader, BadVersion)
    {
        expectError(withLine(1, "ppe-profile 0"), 1, "bad format version '0'");
        expectError(withLine(1, "ppe-profile one"), 1, "bad format version 'one'");
        expectError(withLine(1, "ppe-profile -1"), 1, "bad format version");
    }

    TEST(ProfileReader, TruncatedAtALineBoundary)
    {
        const size_t cut = kGoldenText.find("count in-range");
        ASSERT_NE(cut, std::string_view::npos);
        expectError(kGoldenText.substr(0, cut), 30, "truncated: no 'end' line");
        expectError(kGoldenText.substr(0, kGoldenText.size() - 4), 48, "no 'end' line");
    }

    TEST(ProfileReader, TruncatedMidLine)
    {
        const size_t cut = kGoldenText.find("count in-range") + 8;
        expectError(kGoldenText.substr(0, cut), 31, "the last line has no newline");
        const size_t inQuote = kGoldenText.find("node-7");
        expectError(kGoldenText.substr(0, inQuote), 5, "no newline");
    }

    TEST(ProfileReader, TextAfterEnd)
    {
        expectError(std::string(kGoldenText) + "bin 0x1000 1\n", kGoldenLines + 1, "after the 'end' line");
        expectError(std::string(kGoldenText) + std::string(kGoldenText), kGoldenLines + 1, "after the 'end' line");
    }

    TEST(ProfileReader, BadDecimal)
    {
        expectError(withLine(9, "pid 42x"), 9, "'pid': expected a decimal number");
        expectError(withLine(9, "pid -42"), 9, "'pid'");
        expectError(withLine(9, "pid 0x42"), 9, "'pid'");
        expectError(withLine(9, "pid 99999999999999999999"), 9, "'pid'");
        expectError(withLine(9, "pid"), 9, "expected 1 value(s) after 'pid'");
        expectError(withLine(9, "pid 1 2"), 9, "expected 1 value(s) after 'pid'");
        expectError(withLine(24, "bin-width 4294967296"), 24, "'bin-width'");
    }

    TEST(ProfileReader, BadHex)
    {
        expectError(withLine(16, "load-bias 0x55zz"), 16, "'load-bias': expected a 0x-hex number");
        expectError(withLine(16, "load-bias 1234"), 16, "0x-hex");
        expectError(withLine(16, "load-bias 0x"), 16, "0x-hex");
        expectError(withLine(43, "object-hit 0 1a2b0 15"), 43, "object-hit: expected ID 0xOFFSET COUNT");
    }

    TEST(ProfileReader, BadRange)
    {
        expectError(withLine(17, "range 0x1100 0x1000"), 17, "start < end");
        expectError(withLine(17, "range 0x1000 0x1000"), 17, "start < end");
        expectError(withLine(17, "range 0x1000"), 17, "expected 2 value(s) after 'range'");
    }

    TEST(ProfileReader, BadFixedPoint)
    {
        expectError(withLine(28, "wall-time 2.5s"), 28, "'wall-time': expected a number");
        expectError(withLine(27, "cpu-time 1.234567"), 27, "expected 2 value(s)");
        expectError(withLine(27, "cpu-time 1.2 x"), 27, "cpu-time must be two numbers");
    }

    TEST(ProfileReader, BadTime)
    {
        expectError(withLine(11, "start-time 2000-02-29 00:00:00"), 11, "expected 1 value(s)");
        expectError(withLine(11, "start-time 2000-13-01T00:00:00Z"), 11, "UTC time");
        expectError(withLine(11, "start-time 2000-02-29T24:00:00Z"), 11, "UTC time");
        expectError(withLine(11, "start-time 951782400"), 11, "UTC time");
    }

    TEST(ProfileReader, BadBuildId)
    {
        expectError(withLine(14, "build-id 0123ABCD"), 14, "build-id must be lower-case hex or none");
        expectError(withLine(14, "build-id 012"), 14, "build-id");
        expectError(withLine(14, "build-id 0x0123"), 14, "build-id");
        expectError(withLine(41, "object 0 20 ABCD0102 \"/usr/lib/libc.so.6\""), 41, "object: expected");
    }

    TEST(ProfileReader, BadStatusAndMode)
    {
        expectError(withLine(3, "status running"), 3, "unknown status 'running'");
        expectError(withLine(19, "mode 1 real"), 19, "mode must be '0 real' or '1 cpu'");
        expectError(withLine(19, "mode 2 cpu"), 19, "mode must be");
        expectError(withLine(31, "count in_range 4294967306"), 31, "unknown count category 'in_range'");
    }

    TEST(ProfileReader, BinOutsideTheRange)
    {
        expectError(withLine(48, "bin 0x1100 1"), 48, "outside the range");
        expectError(withLine(46, "bin 0xff8 3"), 46, "outside the range");
    }

    TEST(ProfileReader, BinNotOnABoundary)
    {
        expectError(withLine(46, "bin 0x1001 3"), 46, "not on a bin boundary");
        expectError(withLine(48, "bin 0x10fc 1"), 48, "not on a bin boundary");
    }

    TEST(ProfileReader, BinsMustAscend)
    {
        std::vector<std::string> lines = goldenLines();
        std::swap(lines[45], lines[46]);
        expectError(join(lines), 47, "bin addresses must ascend");
        expectError(withLine(47, "bin 0x1000 4294967295"), 47, "must ascend");
    }

    TEST(ProfileReader, EmptyBinIsAnError) { expectError(withLine(46, "bin 0x1000 0"), 46, "COUNT > 0"); }

    TEST(ProfileReader, BinsMustAddUpToInRangeMinusSaturated)
    {
        expectError(withLine(46, "bin 0x1000 4"), 0, "bins add up to 4294967300 but count in-range is 4294967306");
        expectError(withLine(39, "count saturated 6"), 0, "bins add up to");
        expectError(withoutLine(48), 0, "bins add up to");
    }

    TEST(ProfileReader, TotalMustBeTheSumOfTheCategories)
    {
        expectError(withLine(40, "count total 4294967372"), 0,
            "count total 4294967372 is not the sum of the categories (4294967371)");
        expectError(withLine(32, "count below 12"), 0, "is not the sum of the categories");
    }

    TEST(ProfileReader, BinCountMustMatchRangeAndWidth)
    {
        expectError(withLine(25, "bin-count 33"), 0, "bin-count does not match range and bin-width");
        expectError(withLine(24, "bin-width 4"), 0, "bin-count does not match");
    }

    TEST(ProfileReader, BinWidthMustBeAPowerOfTwo)
    {
        // With 24-byte bins the golden bin at 0x1028 is off a boundary.
        expectError(withLine(24, "bin-width 24"), 47, "not on a bin boundary");
        // A profile consistent in every other way: 256 bytes in 11 bins of 24 bytes.
        std::vector<std::string> lines = goldenLines();
        lines[23] = "bin-width 24";
        lines[24] = "bin-count 11";
        lines[30] = "count in-range 13"; // 3 + 2 + 1 binned, 7 saturated
        lines[39] = "count total 78";
        lines[46] = "bin 0x1018 2";
        lines[47] = "bin 0x10f0 1";
        expectError(join(lines), 0, "bin-width must be a power of two");
    }

    TEST(ProfileReader, EveryRequiredKeyIsRequired)
    {
        const struct {
            const char* key;
            size_t line;
        } kRequired[]
            = { { "producer", 2 }, { "status", 3 }, { "host", 5 }, { "arch", 7 }, { "pid", 9 }, { "start-time", 11 },
                  { "end-time", 12 }, { "image", 13 }, { "build-id", 14 }, { "command", 15 }, { "load-bias", 16 },
                  { "mechanism", 18 }, { "mode", 19 }, { "interval", 20 }, { "bin-width", 24 }, { "bin-count", 25 } };
        for (const auto& required : kRequired) {
            SCOPED_TRACE(required.key);
            ASSERT_EQ(goldenLines()[required.line - 1].rfind(std::string(required.key) + " ", 0), 0u);
            expectError(withoutLine(required.line), 0, "missing '" + std::string(required.key) + "' line");
        }
    }

    TEST(ProfileReader, MissingRangeIsAnError)
    {
        // The bins come before the end, so they are the first to notice.
        expectError(withoutLine(17), 45, "bin before range and bin-width");
    }

    TEST(ProfileReader, MissingCountsAreAnError)
    {
        std::vector<std::string> lines = goldenLines();
        std::vector<std::string> kept;
        for (const std::string& line : lines) {
            if (line.rfind("count ", 0) != 0)
                kept.push_back(line);
        }
        ASSERT_EQ(kept.size(), lines.size() - 10);
        expectError(join(kept), 0, "missing 'count' line");
    }

    TEST(ProfileReader, UnknownKeysAreIgnored)
    {
        const std::string text = withLineAfter(20, "future-key 1 \"two words\" 0x3");
        const Result<Profile> parsed = parseProfile(text, "newer.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        const Result<Profile> golden = parseProfile(kGoldenText, "golden.ppe");
        ASSERT_TRUE(golden.ok());
        EXPECT_EQ(parsed->interval, golden->interval);
        EXPECT_EQ(parsed->bins.size(), golden->bins.size());
        EXPECT_EQ(parsed->total, golden->total);
    }

    TEST(ProfileReader, CommentsAndEmptyLinesAreIgnored)
    {
        std::string text = withLineAfter(9, "# a comment with \"unbalanced quotes");
        text = "ppe-profile 1\n\n# comment\n" + text.substr(text.find('\n') + 1);
        const Result<Profile> parsed = parseProfile(text, "comments.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        EXPECT_EQ(parsed->pid, 4242u);
        // Line numbers still count the ignored lines: pid is now on line 12.
        const std::string bad = "ppe-profile 1\n\n# comment\n" + withLine(9, "pid x").substr(14);
        expectError(bad, 11, "'pid'");
    }

    TEST(ProfileReader, MalformedQuotedString)
    {
        expectError(withLine(5, "host \"node-7"), 5, "malformed quoted string");
        expectError(withLine(5, "host \"node\\q7\""), 5, "malformed quoted string");
        expectError(withLine(5, "host \"node\"7"), 5, "malformed quoted string");
        expectError(withLine(5, "host \"node\\x7\""), 5, "malformed quoted string");
        expectError(withLine(15, "command \"./prog\" \"--name=a b \\\"q\\\""), 15, "malformed quoted string");
    }

    TEST(ProfileReader, ObjectHitBeforeItsObject)
    {
        expectError(withLineAfter(40, "object-hit 0 0x10 1"), 41, "object-hit names object 0 before its object line");
        expectError(withLine(45, "object-hit 2 0x400 10"), 45, "before its object line");
    }

    TEST(ProfileReader, ObjectIdsCountUpFromZero)
    {
        expectError(withLine(42, "object 2 10 none \"/tmp/x.so\""), 42, "object ids must count up from 0");
        expectError(withLine(41, "object 1 20 none \"/usr/lib/libc.so.6\""), 41, "count up from 0");
    }

    TEST(ProfileReader, ObjectHitOffsetsAscend)
    {
        expectError(withLine(44, "object-hit 0 0x1a2b0 5"), 44, "object-hit offsets must ascend");
    }

    // Real-time mode's records, after the objects (line 45 is the golden's last object-hit).
    TEST(ProfileReader, ThreadsBlockedPlacesAndTheScan)
    {
        std::vector<std::string> lines = goldenLines();
        lines.insert(lines.begin() + 45,
            { "blocking-scan 930 0.002602102 0.023245797", "thread 7 4583 2.291877650 0.000000000 \"worker \\\"1\\\"\"",
                "thread 0 12 0.000000000 0.000000000 \"\"", "blocked 230 0.998596416 259 1+0xcf545 image+0x1412",
                "blocked -1 0.5 3 - 0x7ffc00001000 7", "blocked 61 0.25 95 0+0x10 -" });
        const Result<Profile> p = parseProfile(join(lines), "rt.ppe");
        ASSERT_TRUE(p.ok()) << p.error().str();
        ASSERT_TRUE(p->scan.has_value());
        EXPECT_EQ(p->scan->scans, 930u);
        EXPECT_DOUBLE_EQ(p->scan->period, 0.002602102);
        ASSERT_EQ(p->threads.size(), 2u);
        EXPECT_EQ(p->threads[0].tid, 7u);
        EXPECT_EQ(p->threads[0].samples, 4583u);
        EXPECT_DOUBLE_EQ(p->threads[0].cpuSeconds, 2.29187765);
        EXPECT_EQ(p->threads[0].name, "worker \"1\"");
        EXPECT_EQ(p->threads[1].name, "");
        ASSERT_EQ(p->blocked.size(), 3u);
        const BlockedPlace& b = p->blocked[0];
        EXPECT_EQ(b.syscall, 230);
        EXPECT_EQ(b.observations, 259u);
        EXPECT_EQ(b.site.kind, CodeLocation::Kind::Object);
        EXPECT_EQ(b.site.object, 1u);
        EXPECT_EQ(b.site.address, 0xcf545u);
        EXPECT_EQ(b.caller.kind, CodeLocation::Kind::Image);
        EXPECT_EQ(b.caller.address, 0x1412u);
        EXPECT_EQ(p->blocked[1].syscall, -1);
        EXPECT_EQ(p->blocked[1].site.kind, CodeLocation::Kind::None);
        EXPECT_EQ(p->blocked[1].caller.kind, CodeLocation::Kind::Address);
        EXPECT_EQ(p->blocked[1].caller.address, 0x7ffc00001000u);
        EXPECT_EQ(p->blocked[1].tid, 7u); // the waiting thread (issue 34)
        EXPECT_EQ(p->blocked[0].tid, 0u); // a profile of an older collector names none
    }

    TEST(ProfileReader, DamagedThreadAndBlockedLines)
    {
        expectError(withLineAfter(45, "thread 7 12 0.5 0"), 46, "thread: expected TID SAMPLES");
        expectError(withLineAfter(45, "thread x 12 0.5 0 \"a\""), 46, "thread: expected TID SAMPLES");
        expectError(withLineAfter(45, "blocked 230 1.0 3 1+0x10"), 46, "blocked: expected SYSCALL");
        expectError(withLineAfter(45, "blocked 230 1.0 3 9+0x10 -"), 46, "objects named before"); // no object 9
        expectError(withLineAfter(45, "blocked 230 1.0 3 lib+0x10 -"), 46, "blocked: expected");
        expectError(withLineAfter(45, "blocked -3 1.0 3 - -"), 46, "blocked: expected");
        expectError(withLineAfter(45, "blocked 230 1.0 3 image+10 -"), 46, "blocked: expected");
        expectError(withLineAfter(45, "blocked 230 1.0 3 - - x"), 46, "blocked: expected"); // the tid
        expectError(withLineAfter(45, "blocked 230 1.0 3 - - 7 8"), 46, "blocked: expected");
        expectError(withLineAfter(45, "blocking-scan 3 0.1"), 46, "blocking-scan: expected SCANS");
        expectError(withLineAfter(45, "ring-throttled"), 46, "ring-throttled must be one decimal number");
        expectError(withLineAfter(45, "ring-throttled -1"), 46, "ring-throttled must be one decimal number");
        expectError(withLineAfter(45, "ring-throttled 3 4"), 46, "ring-throttled must be one decimal number");
    }

    TEST(ProfileReader, ErrorNamesTheFile)
    {
        const Result<Profile> result = parseProfile(withLine(9, "pid x"), "/data/run 1/simp.ppe");
        ASSERT_FALSE(result.ok());
        EXPECT_EQ(result.error().str(), "/data/run 1/simp.ppe:9: 'pid': expected a decimal number");
        const Result<Profile> whole = parseProfile(withoutLine(7), "simp.ppe");
        ASSERT_FALSE(whole.ok());
        EXPECT_EQ(whole.error().str(), "simp.ppe: missing 'arch' line");
    }

    TEST(ProfileReader, ReadsAFile)
    {
        char pattern[] = "/tmp/ppe-unit-reader-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
        const std::string dir = pattern;
        const std::string path = dir + "/golden.ppe";
        std::ofstream(path, std::ios::binary) << kGoldenText;
        const Result<Profile> read = readProfile(path);
        const Result<Profile> missing = readProfile(dir + "/absent.ppe");
        std::filesystem::remove_all(dir);
        ASSERT_TRUE(read.ok()) << read.error().str();
        EXPECT_EQ(read->pid, 4242u);
        ASSERT_FALSE(missing.ok());
        EXPECT_EQ(missing.error().file, dir + "/absent.ppe");
        EXPECT_EQ(missing.error().line, 0u);
        EXPECT_EQ(missing.error().str(), dir + "/absent.ppe: cannot open for reading: No such file or directory");
    }

    TEST(LooksLikeProfile, Recognises)
    {
        EXPECT_TRUE(looksLikeProfile(kGoldenText));
        EXPECT_TRUE(looksLikeProfile("ppe-profile 2\n"));
        EXPECT_TRUE(looksLikeProfile("ppe-profile 1"));
    }

    TEST(LooksLikeProfile, RejectsOtherInputs)
    {
        EXPECT_FALSE(looksLikeProfile(""));
        EXPECT_FALSE(looksLikeProfile("ppe-profile"));
        EXPECT_FALSE(looksLikeProfile("ppe-profil 1\n"));
        EXPECT_FALSE(looksLikeProfile("PPE-PROFILE 1\n"));
        EXPECT_FALSE(looksLikeProfile(" ppe-profile 1\n"));
        EXPECT_FALSE(looksLikeProfile("Archive member included to satisfy reference by file (symbol)\n"));
        EXPECT_FALSE(looksLikeProfile("\x7f"
                                      "ELF"));
    }

    // The rank of a parallel job's process (issue 20): after parent-pid when the collector knew it;
    // files without it (older ones, processes without a rank) read as before.
    TEST(ProfileReader, TheRankRecordIsOptional)
    {
        auto ranked = parseProfile(withLineAfter(10, "rank 17"), "ranked.ppe");
        ASSERT_TRUE(ranked.ok()) << ranked.error().str();
        ASSERT_TRUE(ranked->rank);
        EXPECT_EQ(*ranked->rank, 17u);
        auto plain = parseProfile(kGoldenText, "golden.ppe");
        ASSERT_TRUE(plain.ok());
        EXPECT_FALSE(plain->rank);
        expectError(withLineAfter(10, "rank three"), 11, "rank: expected a decimal number");
    }

} // namespace
} // namespace ppe
