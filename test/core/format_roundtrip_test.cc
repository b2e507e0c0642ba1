// The .ppe contract: the signal-safe writer's exact bytes for a fixed profile, and the reader
// giving every field back; then the reader's errors on damaged files.
#include "ppe/core/ppe_writer.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe {
namespace {

std::string writeToString(const ProfileOutput& output)
{
    const int fd = memfd_create("ppe", 0);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(writeProfile(fd, output), 0);
    std::string text(size_t(lseek(fd, 0, SEEK_END)), '\0');
    EXPECT_EQ(pread(fd, text.data(), text.size(), 0), ssize_t(text.size()));
    close(fd);
    return text;
}

void setText(char* field, size_t size, const char* text) { std::strncpy(field, text, size - 1); }

// A profile with every field set to something distinctive.
struct Fixture {
    ProfileRecord record {};
    uint32_t bins[16] = {};
    const uint8_t libmId[4] = { 0xde, 0xad, 0xbe, 0xef };
    ObjectInfo objects[2] = { { "/lib/libm.so.6", 7, libmId, 4 }, { "/opt/my lib/libx.so", 2, nullptr, 0 } };
    ObjectHit hits[3] = { { 0, 0x1a40, 5 }, { 0, 0x1a44, 2 }, { 1, 0x300, 2 } };

    Fixture()
    {
        ProfileRecord& r = record;
        setText(r.producer, sizeof(r.producer), "libppe 0.1.0");
        setText(r.host, sizeof(r.host), "bec");
        setText(r.cpu, sizeof(r.cpu), "Digital Personal WorkStation");
        setText(r.arch, sizeof(r.arch), "alpha");
        setText(r.os, sizeof(r.os), "Linux 6.1");
        setText(r.image, sizeof(r.image), "/home/kachaev/simp");
        for (uint8_t i = 0; i < 20; ++i)
            r.buildId[i] = uint8_t(i * 13);
        r.buildIdSize = 20;
        const char command[] = "simp\0with space \"quoted\"\0";
        std::memcpy(r.command, command, sizeof(command) - 1);
        r.commandSize = sizeof(command) - 1;
        r.pid = 4107;
        r.parentPid = 1;
        r.startTime = 1073250060; // 2004-01-04T21:01:00Z
        r.endTime = 1073250062;
        r.loadBias = 0x555555554000;
        EXPECT_TRUE(computeBinLayout(0x1000, 0x1010, 1, 64, &r.layout));
        r.granularity = 1;
        r.mode = uint32_t(SampleMode::Cpu);
        r.interval = 5000;
        setText(r.mechanism, sizeof(r.mechanism), "perf-task-clock");
        r.cpuUserUs = 2'080'000;
        r.cpuSystemUs = 1'500;
        r.wallUs = 2'100'000;
        r.activeUs = 2'000'000;
        r.ticks = 0;
        bins[0] = 3;
        bins[5] = 40;
        bins[15] = UINT32_MAX;
        r.counts[kInRange] = 3 + 40 + uint64_t(UINT32_MAX) + 2;
        r.saturated = 2;
        r.counts[kBelow] = 1;
        r.counts[kShared] = 9;
        r.counts[kVdso] = 4;
        r.status = uint32_t(ProfileStatus::Complete);
        setText(r.endReason, sizeof(r.endReason), "exit");
    }

    ProfileOutput output() const { return ProfileOutput { &record, bins, objects, 2, hits, 3 }; }
};

const char kGolden[] = R"(ppe-profile 1
producer "libppe 0.1.0"
status complete
end-reason "exit"
host "bec"
cpu "Digital Personal WorkStation"
arch "alpha"
os "Linux 6.1"
pid 4107
parent-pid 1
start-time 2004-01-04T21:01:00Z
end-time 2004-01-04T21:01:02Z
image "/home/kachaev/simp"
build-id 000d1a2734414e5b6875828f9ca9b6c3d0ddeaf7
command "simp" "with space \"quoted\""
load-bias 0x555555554000
range 0x1000 0x1010
mechanism "perf-task-clock"
mode 1 cpu
interval 5000
requested-rate 2000.000
achieved-rate 2147483677.000
granularity 1
bin-width 1
bin-count 16
max-bin 4294967295
cpu-time 2.080000 0.001500
wall-time 2.100000
active-time 2.000000
ticks 0
count in-range 4294967340
count below 1
count above 0
count shared 9
count vdso 4
count anon 0
count unknown 0
count lost 0
count saturated 2
count total 4294967354
object 0 7 deadbeef "/lib/libm.so.6"
object 1 2 none "/opt/my lib/libx.so"
object-hit 0 0x1a40 5
object-hit 0 0x1a44 2
object-hit 1 0x300 2
bin 0x1000 3
bin 0x1005 40
bin 0x100f 4294967295
end
)";

TEST(PpeFormat, WriterProducesTheSpecifiedBytes)
{
    const Fixture f;
    EXPECT_EQ(writeToString(f.output()), kGolden);
}

TEST(PpeFormat, ReaderGivesEveryFieldBack)
{
    auto read = parseProfile(kGolden, "golden.ppe");
    ASSERT_TRUE(read) << read.error().str();
    const Profile& p = *read;
    EXPECT_EQ(p.version, 1u);
    EXPECT_EQ(p.producer, "libppe 0.1.0");
    EXPECT_EQ(p.status, ProfileStatus::Complete);
    EXPECT_EQ(p.endReason, "exit");
    EXPECT_EQ(p.host, "bec");
    EXPECT_EQ(p.cpu, "Digital Personal WorkStation");
    EXPECT_EQ(p.arch, "alpha");
    EXPECT_EQ(p.pid, 4107u);
    EXPECT_EQ(p.startTime, 1073250060);
    EXPECT_EQ(p.endTime, 1073250062);
    EXPECT_EQ(p.image, "/home/kachaev/simp");
    EXPECT_EQ(p.buildId, "000d1a2734414e5b6875828f9ca9b6c3d0ddeaf7");
    EXPECT_EQ(p.command, (std::vector<std::string> { "simp", "with space \"quoted\"" }));
    EXPECT_EQ(p.loadBias, 0x555555554000u);
    EXPECT_EQ(p.rangeStart, 0x1000u);
    EXPECT_EQ(p.rangeEnd, 0x1010u);
    EXPECT_EQ(p.mechanism, "perf-task-clock");
    EXPECT_EQ(p.mode, SampleMode::Cpu);
    EXPECT_EQ(p.interval, 5000u);
    EXPECT_DOUBLE_EQ(p.requestedRate, 2000.0);
    EXPECT_DOUBLE_EQ(p.achievedRate, 2147483677.0); // 4294967354 samples in 2 s of CPU time
    EXPECT_EQ(p.binWidth, 1u);
    EXPECT_EQ(p.binCount, 16u);
    EXPECT_EQ(p.maxBin, 4294967295u);
    EXPECT_DOUBLE_EQ(p.cpuUser, 2.08);
    EXPECT_DOUBLE_EQ(p.cpuSystem, 0.0015);
    EXPECT_EQ(p.inRange(), 4294967340u);
    EXPECT_EQ(p.counts[kBelow], 1u);
    EXPECT_EQ(p.counts[kShared], 9u);
    EXPECT_EQ(p.counts[kVdso], 4u);
    EXPECT_EQ(p.saturated, 2u);
    EXPECT_EQ(p.total, 4294967354u);
    ASSERT_EQ(p.objects.size(), 2u);
    EXPECT_EQ(p.objects[0].path, "/lib/libm.so.6");
    EXPECT_EQ(p.objects[0].buildId, "deadbeef");
    EXPECT_EQ(p.objects[0].hits, 7u);
    ASSERT_EQ(p.objects[0].hitsByOffset.size(), 2u);
    EXPECT_EQ(p.objects[0].hitsByOffset[1].fileOffset, 0x1a44u);
    EXPECT_EQ(p.objects[1].path, "/opt/my lib/libx.so");
    EXPECT_EQ(p.objects[1].buildId, "");
    ASSERT_EQ(p.bins.size(), 3u);
    EXPECT_EQ(p.bins[2].address, 0x100fu);
    EXPECT_EQ(p.bins[2].count, 4294967295u);
}

TEST(PpeFormat, Rates)
{
    EXPECT_EQ(requestedRateMilliHz(5000), 2'000'000u);
    EXPECT_EQ(requestedRateMilliHz(100000), 100'000u);
    ProfileRecord r {};
    r.mode = uint32_t(SampleMode::Real);
    r.ticks = 4000;
    r.counts[kInRange] = 12000; // three threads
    r.activeUs = 2'000'000;
    EXPECT_EQ(achievedRateMilliHz(r), 2'000'000u) << "real time: ticks per wall second";
    r.mode = uint32_t(SampleMode::Cpu);
    EXPECT_EQ(achievedRateMilliHz(r), 6'000'000u) << "CPU time: samples per CPU second";
}

// ---- damaged files: one clear error naming the file and the line ----

std::string replaceLine(std::string text, const std::string& from, const std::string& to)
{
    const size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
}

struct Damage {
    const char* what;
    std::string text;
    size_t line;
    const char* message;
};

TEST(PpeReader, DamagedFilesGiveOneClearError)
{
    const std::string g = kGolden;
    const std::vector<Damage> cases = {
        { "empty", "", 0, "empty file" },
        { "binary", std::string("\x7f" "ELF\0\0\1", 7), 0, "binary data" },
        { "a linker map", "Archive member included to satisfy reference by file (symbol)\n", 1, "not a ppe profile" },
        { "newer version", replaceLine(g, "ppe-profile 1", "ppe-profile 2"), 1, "newer than this ppeout" },
        { "truncated at a line", g.substr(0, g.find("count total")), 39, "truncated: no 'end' line" },
        { "truncated mid-line", g.substr(0, g.find("count total") + 8), 40, "no newline" },
        { "text after end", g + "bin 0x1001 1\n", 50, "after the 'end'" },
        { "bad number", replaceLine(g, "pid 4107", "pid 41o7"), 9, "expected a decimal number" },
        { "bad hex", replaceLine(g, "load-bias 0x555555554000", "load-bias 555555554000"), 16, "0x-hex" },
        { "bin outside the range", replaceLine(g, "bin 0x1005 40", "bin 0x2005 40"), 47, "outside the range" },
        { "bins not ascending", replaceLine(g, "bin 0x1005 40", "bin 0x0fff 40"), 47, "outside the range" },
        { "bins out of order", replaceLine(g, "bin 0x1000 3", "bin 0x1006 3"), 47, "must ascend" },
        { "bins do not add up", replaceLine(g, "bin 0x1005 40", "bin 0x1005 41"), 0, "bins add up to" },
        { "total does not add up", replaceLine(g, "count below 1", "count below 2"), 0, "not the sum" },
        { "missing key", replaceLine(g, "image \"/home/kachaev/simp\"\n", ""), 0, "missing 'image'" },
        { "bad quote", replaceLine(g, "host \"bec\"", "host \"bec"), 5, "malformed quoted string" },
        { "hit before object", replaceLine(g, "object 1 2 none", "object-hit 3 0x1 1\nobject 1 2 none"), 42,
            "before its object line" },
        { "bad mode", replaceLine(g, "mode 1 cpu", "mode 1 real"), 19, "mode must be" },
    };
    for (const Damage& d : cases) {
        auto read = parseProfile(d.text, "damaged.ppe");
        ASSERT_FALSE(read) << d.what;
        EXPECT_EQ(read.error().line, d.line) << d.what << ": " << read.error().str();
        EXPECT_NE(read.error().message.find(d.message), std::string::npos) << d.what << ": " << read.error().str();
        EXPECT_EQ(read.error().str().rfind("damaged.ppe", 0), 0u) << d.what;
        EXPECT_EQ(read.error().str().find('\n'), std::string::npos) << d.what;
    }
}

TEST(PpeReader, UnknownKeysAreIgnoredForwardCompatibly)
{
    auto read = parseProfile(replaceLine(kGolden, "ticks 0\n", "ticks 0\nthreads 4\n"), "newer.ppe");
    EXPECT_TRUE(read) << read.error().str();
}

TEST(PpeReader, RecognisesProfiles)
{
    EXPECT_TRUE(looksLikeProfile(kGolden));
    EXPECT_FALSE(looksLikeProfile("Memory Configuration\n"));
    EXPECT_FALSE(looksLikeProfile(""));
    auto missing = readProfile("/nonexistent/x.ppe");
    ASSERT_FALSE(missing);
    EXPECT_EQ(missing.error().str(), "/nonexistent/x.ppe: cannot open for reading");
}

} // namespace
} // namespace ppe
