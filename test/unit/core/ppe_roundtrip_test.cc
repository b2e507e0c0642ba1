// The .ppe contract (docs/ppe-format.md): the signal-safe writer's exact bytes for a fixed profile,
// the reader giving every field back, and the rates the header reports.
#include "golden_profile.h"
#include "memfd.h"

#include "ppe/core/call_tree.h"
#include "ppe/core/ppe_writer.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace ppe {

// Names in failure messages instead of the enums' bytes.
static void PrintTo(ProfileStatus status, std::ostream* os) { *os << statusName(status); }
static void PrintTo(SampleMode mode, std::ostream* os) { *os << "SampleMode " << int(mode); }

namespace {

    using test::kGoldenText;
    using test::makeGoldenProfile;
    using test::Memfd;

    std::string writtenText(const ProfileOutput& output)
    {
        Memfd file;
        EXPECT_EQ(writeProfile(file.fd(), output), 0);
        return file.contents();
    }

    // Compares line by line first, so that a difference names the line.
    void expectSameLines(const std::string& actual, std::string_view expected)
    {
        size_t a = 0, e = 0;
        for (size_t line = 1; a < actual.size() && e < expected.size(); ++line) {
            const size_t aEnd = std::min(actual.find('\n', a), actual.size());
            const size_t eEnd = std::min(expected.find('\n', e), expected.size());
            ASSERT_EQ(actual.substr(a, aEnd - a), expected.substr(e, eEnd - e)) << "line " << line;
            a = aEnd + 1;
            e = eEnd + 1;
        }
    }

    TEST(PpeWriter, ExactBytesOfTheGoldenProfile)
    {
        const auto golden = makeGoldenProfile();
        const std::string text = writtenText(golden->output());
        expectSameLines(text, kGoldenText);
        EXPECT_EQ(text, kGoldenText);
    }

    TEST(PpeWriter, WritingTwiceGivesTheSameBytes)
    {
        const auto golden = makeGoldenProfile();
        EXPECT_EQ(writtenText(golden->output()), writtenText(golden->output()));
    }

    TEST(PpeWriter, NoObjectsNoBinsAndNoBuildId)
    {
        const auto golden = makeGoldenProfile();
        ProfileRecord& r = golden->record;
        r.buildIdSize = 0;
        r.commandSize = 0;
        r.status = uint32_t(ProfileStatus::Recovered);
        r.mode = uint32_t(SampleMode::Real);
        std::strcpy(r.mechanism, "posix-timer");
        r.ticks = 1000;
        r.activeUs = 500000;
        for (uint64_t& c : r.counts)
            c = 0;
        r.saturated = 0;
        golden->bins.fill(0);
        ProfileOutput out = golden->output();
        out.objectCount = 0;
        out.hitCount = 0;
        const std::string text = writtenText(out);
        EXPECT_NE(text.find("\nstatus recovered\n"), std::string::npos);
        EXPECT_NE(text.find("\nbuild-id none\n"), std::string::npos);
        EXPECT_NE(text.find("\ncommand\n"), std::string::npos);
        EXPECT_NE(text.find("\nmode 0 real\n"), std::string::npos);
        EXPECT_NE(text.find("\nachieved-rate 2000.000\n"), std::string::npos); // 1000 ticks in 0.5 s
        EXPECT_NE(text.find("\nmax-bin 0\n"), std::string::npos);
        EXPECT_NE(text.find("\ncount total 0\nend\n"), std::string::npos) << text;
        EXPECT_EQ(text.find("object"), std::string::npos);
        EXPECT_EQ(text.find("\nbin "), std::string::npos);

        const Result<Profile> parsed = parseProfile(text, "empty.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        EXPECT_TRUE(parsed->command.empty());
        EXPECT_EQ(parsed->buildId, "");
        EXPECT_EQ(parsed->status, ProfileStatus::Recovered);
        EXPECT_TRUE(parsed->bins.empty());
        EXPECT_TRUE(parsed->objects.empty());
    }

    // Issue 18: the monitored image's code sections (for checking a map without the image) and the
    // time a recovered profile's CPU time was taken, written after range and cpu-time, read back.
    TEST(PpeWriter, CodeSectionsAndCpuTimeAsOfAreWrittenAndReadBack)
    {
        const auto golden = makeGoldenProfile();
        ProfileRecord& r = golden->record;
        r.codeSections[0] = CodeSection { ".init", 0x1000, 0x17 };
        r.codeSections[1] = CodeSection { ".text", 0x1080, 0x20a };
        r.codeSectionCount = 2;
        r.cpuTimeAsOf = 1'700'000'002;
        const std::string text = writtenText(golden->output());
        EXPECT_NE(text.find("\ncode-section \".init\" 0x1000 0x17\ncode-section \".text\" 0x1080 0x20a\nmechanism "),
            std::string::npos)
            << text;
        EXPECT_NE(text.find("\ncpu-time-as-of 2023-11-14T22:13:22Z\nwall-time "), std::string::npos) << text;
        const Result<Profile> parsed = parseProfile(text, "sections.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        ASSERT_EQ(parsed->codeSections.size(), 2u);
        EXPECT_EQ(parsed->codeSections[1].name, ".text");
        EXPECT_EQ(parsed->codeSections[1].address, 0x1080u);
        EXPECT_EQ(parsed->codeSections[1].size, 0x20au);
        EXPECT_EQ(parsed->cpuTimeAsOf, 1'700'000'002);
        const auto plain = parseProfile(std::string(kGoldenText), "golden.ppe");
        ASSERT_TRUE(plain.ok()) << plain.error().str();
        EXPECT_TRUE(plain->codeSections.empty()) << "files written before the record have none";
        EXPECT_EQ(plain->cpuTimeAsOf, 0);
    }

    // Issue 22: perf-ring's lost and foreign samples, after the counts, only for that mechanism.
    TEST(PpeWriter, RingDroppedSamplesAreWrittenAndReadBack)
    {
        const auto golden = makeGoldenProfile();
        ProfileRecord& r = golden->record;
        r.ringLost = 1234;
        r.ringForeign = 56;
        r.ringThrottled = 7;
        EXPECT_EQ(writtenText(golden->output()).find("ring-dropped"), std::string::npos) << "not for perf-task-clock";
        std::strcpy(r.mechanism, "perf-ring");
        const std::string text = writtenText(golden->output());
        EXPECT_NE(text.find("\ncount total 4294967371\nring-dropped 1234 56\nring-throttled 7\n"), std::string::npos)
            << text;
        const Result<Profile> parsed = parseProfile(text, "ring.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        EXPECT_EQ(parsed->ringLost, 1234u);
        EXPECT_EQ(parsed->ringForeign, 56u);
        EXPECT_EQ(parsed->ringThrottled, 7u);
        EXPECT_TRUE(parsed->ringThrottledKnown);
        EXPECT_EQ(parsed->mechanism, "perf-ring");
    }

    // Issue 39: a call tree goes out as version 3's records and reads back node for node; a tree
    // whose nodes gained samples after its total was read (a drain beside a checkpoint) is written
    // with a total that holds them, so the file always reads.
    TEST(PpeWriter, CallTreesAreWrittenAndReadBack)
    {
        const auto golden = makeGoldenProfile();
        std::vector<uint64_t> memory((callTreeBytes(16) + 7) / 8, 0);
        const CallTree tree = makeCallTree(memory.data(), 16);
        const uint64_t leafFirst[] = { 0x401200, 0x401100 };
        addCallPath(tree, leafFirst, 2, 5);
        ProfileOutput output = golden->output();
        const RawOutside raw;
        output.raw = &raw;
        output.calls = tree;
        std::string text = writtenText(output);
        EXPECT_EQ(text.rfind("ppe-profile 3\n", 0), 0u) << text.substr(0, 40);
        EXPECT_NE(
            text.find("\ncall-paths 5 0 2\ncall-node 1 0 0x401100 0\ncall-node 2 1 0x401200 5\n"), std::string::npos)
            << text;
        Result<Profile> parsed = parseProfile(text, "calls.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        ASSERT_EQ(parsed->calls.nodes.size(), 3u);
        EXPECT_EQ(parsed->calls.nodes[2].self, 5u);
        tree.header->samples = 3; // as read before two of the leaf's samples were added
        text = writtenText(output);
        parsed = parseProfile(text, "raced.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        EXPECT_EQ(parsed->calls.samples, 5u);
    }

    TEST(PpeWriter, BadDescriptorReturnsTheErrno)
    {
        const auto golden = makeGoldenProfile();
        EXPECT_EQ(writeProfile(-1, golden->output()), EBADF);
    }

    TEST(PpeReader, GivesBackEveryFieldOfTheGoldenProfile)
    {
        const auto golden = makeGoldenProfile();
        const std::string text = writtenText(golden->output());
        const Result<Profile> parsed = parseProfile(text, "golden.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        const Profile& p = *parsed;

        EXPECT_EQ(p.version, 1u);
        EXPECT_EQ(p.producer, "libppe 9.8.7");
        EXPECT_EQ(p.status, ProfileStatus::Checkpoint);
        EXPECT_EQ(p.endReason, "signal 15");
        EXPECT_EQ(p.host, "node-7");
        EXPECT_EQ(p.cpu, "Test CPU\t@ 1.00GHz");
        EXPECT_EQ(p.arch, "x86_64");
        EXPECT_EQ(p.os, "Linux 6.1.0-test");
        EXPECT_EQ(p.pid, 4242u);
        EXPECT_EQ(p.parentPid, 4241u);
        EXPECT_EQ(p.startTime, 951782400);
        EXPECT_EQ(p.endTime, 951782400 + 3723);
        EXPECT_EQ(p.image,
            "/opt/app/bin/pr\xff"
            "g");
        EXPECT_EQ(p.buildId, "0123456789abcdeffedcba987654321000ff0ff0");
        EXPECT_EQ(p.command, (std::vector<std::string> { "./prog", "--name=a b \"q\"" }));

        EXPECT_EQ(p.loadBias, 0x555555554000u);
        EXPECT_EQ(p.rangeStart, 0x1000u);
        EXPECT_EQ(p.rangeEnd, 0x1100u);
        EXPECT_EQ(p.mechanism, "perf-task-clock");
        EXPECT_EQ(p.mode, SampleMode::Cpu);
        EXPECT_EQ(p.interval, 5000u);
        EXPECT_DOUBLE_EQ(p.requestedRate, 2000.0);
        EXPECT_DOUBLE_EQ(p.achievedRate, 3478912020.522);
        EXPECT_EQ(p.granularity, 1u);
        EXPECT_EQ(p.binWidth, 8u);
        EXPECT_EQ(p.binCount, 32u);
        EXPECT_EQ(p.maxBin, 4294967295u);
        EXPECT_DOUBLE_EQ(p.cpuUser, 1.234567);
        EXPECT_DOUBLE_EQ(p.cpuSystem, 0.000005);
        EXPECT_DOUBLE_EQ(p.wallTime, 2.5);
        EXPECT_DOUBLE_EQ(p.activeTime, 1.234572);
        EXPECT_EQ(p.ticks, 77u);

        const std::array<uint64_t, kCategoryCount> counts = { 4294967306, 11, 12, 30, 2, 1, 4, 5 };
        EXPECT_EQ(p.counts, counts);
        for (unsigned c = 0; c < kCategoryCount; ++c)
            EXPECT_EQ(p.counts[c], golden->record.counts[c]) << categoryName(c);
        EXPECT_EQ(p.inRange(), 4294967306u);
        EXPECT_EQ(p.saturated, 7u);
        EXPECT_EQ(p.total, 4294967371u);
        EXPECT_EQ(p.total, totalSamples(golden->record));

        ASSERT_EQ(p.objects.size(), 2u);
        EXPECT_EQ(p.objects[0].path, "/usr/lib/libc.so.6");
        EXPECT_EQ(p.objects[0].buildId, "abcd0102");
        EXPECT_EQ(p.objects[0].hits, 20u);
        ASSERT_EQ(p.objects[0].hitsByOffset.size(), 2u);
        EXPECT_EQ(p.objects[0].hitsByOffset[0].fileOffset, 0x1a2b0u);
        EXPECT_EQ(p.objects[0].hitsByOffset[0].count, 15u);
        EXPECT_EQ(p.objects[0].hitsByOffset[1].fileOffset, 0x1a2c4u);
        EXPECT_EQ(p.objects[0].hitsByOffset[1].count, 5u);
        EXPECT_EQ(p.objects[1].path, "/tmp/weird \"lib\"\n.so");
        EXPECT_EQ(p.objects[1].buildId, "");
        EXPECT_EQ(p.objects[1].hits, 10u);
        ASSERT_EQ(p.objects[1].hitsByOffset.size(), 1u);
        EXPECT_EQ(p.objects[1].hitsByOffset[0].fileOffset, 0x400u);
        EXPECT_EQ(p.objects[1].hitsByOffset[0].count, 10u);

        ASSERT_EQ(p.bins.size(), 3u);
        EXPECT_EQ(p.bins[0].address, 0x1000u);
        EXPECT_EQ(p.bins[0].count, 3u);
        EXPECT_EQ(p.bins[1].address, 0x1028u);
        EXPECT_EQ(p.bins[1].count, uint64_t(UINT32_MAX));
        EXPECT_EQ(p.bins[2].address, 0x10f8u);
        EXPECT_EQ(p.bins[2].count, 1u);
    }

    TEST(PpeReader, GoldenTextParsesLikeTheWriterOutput)
    {
        // The hand-written golden and the writer's output must be the same profile even if the
        // exact-bytes test fails, so that a failure there is a format change, not a reader change.
        const Result<Profile> parsed = parseProfile(kGoldenText, "golden.ppe");
        ASSERT_TRUE(parsed.ok()) << parsed.error().str();
        EXPECT_EQ(parsed->bins.size(), 3u);
        EXPECT_EQ(parsed->objects.size(), 2u);
    }

    TEST(PpeRates, Requested)
    {
        EXPECT_EQ(requestedRateMilliHz(5000), 2'000'000u); // 0.5 ms: 2 kHz
        EXPECT_EQ(requestedRateMilliHz(100), 100'000'000u); // 10 us: 100 kHz
        EXPECT_EQ(requestedRateMilliHz(3), 3'333'333'333u); // truncated, not rounded
        EXPECT_EQ(requestedRateMilliHz(10'000'000), 1'000u); // 1 s: 1 Hz
        EXPECT_EQ(requestedRateMilliHz(0), 0u);
    }

    ProfileRecord* rateRecord(SampleMode mode)
    {
        static ProfileRecord record;
        record = ProfileRecord {};
        record.mode = uint32_t(mode);
        return &record;
    }

    // Real-time mode's records: written after the objects, read back to the same values.
    TEST(PpeWriter, ThreadsBlockedPlacesAndTheScanRoundTrip)
    {
        const auto golden = makeGoldenProfile();
        ProfileOutput out = golden->output();
        ThreadRecord threads[2] = { { 7, 4583, 2'291'877'650, 0, "worker" }, { 0, 12, 0, 0, "" } };
        threads[0].name[6] = '\n'; // written escaped
        BlockedRecord blocked[2] = {
            { 230, 998'596'416, 259, { CodePlace::Kind::Object, 1, 0xcf545 }, { CodePlace::Kind::Image, 0, 0x1412 },
                7 },
            { -1, 500'000'000, 3, {}, { CodePlace::Kind::Address, 0, 0x7ffc00001000 } },
        };
        const ScanSummary scan { 930, 2'602'102, 23'245'797 };
        out.threads = threads;
        out.threadCount = 2;
        out.blocked = blocked;
        out.blockedCount = 2;
        out.scan = &scan;
        const std::string text = writtenText(out);
        EXPECT_NE(text.find("\nblocking-scan 930 0.002602102 0.023245797\nthread 7 4583 2.291877650 0.000000000 "
                            "\"worker\\n\"\nthread 0 12 0.000000000 0.000000000 \"\"\nblocked 230 0.998596416 259 "
                            "1+0xcf545 image+0x1412 7\nblocked -1 0.500000000 3 - 0x7ffc00001000 0\nbin "),
            std::string::npos)
            << text;
        const Result<Profile> p = parseProfile(text, "rt.ppe");
        ASSERT_TRUE(p.ok()) << p.error().str();
        ASSERT_EQ(p->threads.size(), 2u);
        EXPECT_EQ(p->threads[0].name, "worker\n");
        ASSERT_EQ(p->blocked.size(), 2u);
        EXPECT_EQ(p->blocked[0].site.object, 1u);
        EXPECT_EQ(p->blocked[0].tid, 7u);
        EXPECT_DOUBLE_EQ(p->blocked[1].seconds, 0.5);
        EXPECT_EQ(p->blocked[1].tid, 0u);
        EXPECT_EQ(p->scan->scans, 930u);
    }

    TEST(PpeRates, CpuModeIsSamplesPerActiveCpuSecond)
    {
        ProfileRecord& r = *rateRecord(SampleMode::Cpu);
        r.counts[kInRange] = 2000;
        r.counts[kShared] = 700;
        r.counts[kLost] = 300; // every category counts
        r.saturated = 999; // already in in-range: not counted again
        r.ticks = 123456; // ignored in CPU mode
        r.activeUs = 1'500'000;
        EXPECT_EQ(achievedRateMilliHz(r), 2'000'000u);
    }

    TEST(PpeRates, RealModeByThePosixTimerIsTicksPerActiveWallSecond)
    {
        ProfileRecord& r = *rateRecord(SampleMode::Real);
        std::strcpy(r.mechanism, "posix-timer");
        r.ticks = 2263;
        r.counts[kInRange] = 10; // ignored in real mode
        r.activeUs = 1'131'869;
        EXPECT_EQ(achievedRateMilliHz(r), 1'999'347u); // 1999.347 Hz, the example in docs/ppe-format.md
    }

    // Real time by a CPU-time mechanism: the running threads' samples per active CPU second, as in
    // CPU mode (blocked threads are the scan's, not samples).
    TEST(PpeRates, RealModeByCpuTimeIsSamplesPerActiveCpuSecond)
    {
        ProfileRecord& r = *rateRecord(SampleMode::Real);
        std::strcpy(r.mechanism, "perf-task-clock");
        r.counts[kInRange] = 1500;
        r.counts[kShared] = 500;
        r.ticks = 77; // ignored
        r.activeUs = 1'000'000;
        EXPECT_EQ(achievedRateMilliHz(r), 2'000'000u);
    }

    TEST(PpeRates, NothingActiveIsZero)
    {
        ProfileRecord& r = *rateRecord(SampleMode::Real);
        r.ticks = 100;
        EXPECT_EQ(achievedRateMilliHz(r), 0u);
    }

    TEST(PpeNames, CategoriesAndStatuses)
    {
        const char* const kNames[] = { "in-range", "below", "above", "shared", "vdso", "anon", "unknown", "lost" };
        for (unsigned c = 0; c < kCategoryCount; ++c)
            EXPECT_STREQ(categoryName(c), kNames[c]);
        EXPECT_STREQ(categoryName(kCategoryCount), "invalid");
        EXPECT_STREQ(statusName(ProfileStatus::Complete), "complete");
        EXPECT_STREQ(statusName(ProfileStatus::Checkpoint), "checkpoint");
        EXPECT_STREQ(statusName(ProfileStatus::Recovered), "recovered");
    }

} // namespace
} // namespace ppe
