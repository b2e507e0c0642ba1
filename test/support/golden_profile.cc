#include "golden_profile.h"

#include "ppe/core/bin_layout.h"
#include "ppe/core/output_file.h"

#include <gtest/gtest.h>

#include <cstring>

namespace ppe::test {

namespace {

    template <size_t N> void setText(char (&field)[N], const char* text)
    {
        EXPECT_TRUE(copyString(field, N, text)) << text;
    }

    void fillRecord(ProfileRecord& r)
    {
        setText(r.producer, "libppe 9.8.7");
        r.status = uint32_t(ProfileStatus::Checkpoint);
        setText(r.endReason, "signal 15");
        setText(r.host, "node-7");
        setText(r.cpu, "Test CPU\t@ 1.00GHz");
        setText(r.arch, "x86_64");
        setText(r.os, "Linux 6.1.0-test");
        r.pid = 4242;
        r.parentPid = 4241;
        r.startTime = 951782400; // 2000-02-29T00:00:00Z
        r.endTime = 951782400 + 3723; // 01:02:03 later
        setText(r.image,
            "/opt/app/bin/pr\xff"
            "g");
        const uint8_t buildId[20] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76,
            0x54, 0x32, 0x10, 0x00, 0xff, 0x0f, 0xf0 };
        std::memcpy(r.buildId, buildId, sizeof(buildId));
        r.buildIdSize = sizeof(buildId);
        const char command[] = "./prog\0--name=a b \"q\""; // two arguments, each ending in '\0'
        std::memcpy(r.command, command, sizeof(command));
        r.commandSize = sizeof(command);

        r.loadBias = 0x555555554000;
        // 256 bytes in a 128-byte budget: 8-byte bins, 32 of them.
        EXPECT_TRUE(computeBinLayout(0x1000, 0x1100, 1, 128, &r.layout));
        r.granularity = 1;
        r.mode = uint32_t(SampleMode::Cpu);
        r.interval = 5000;
        setText(r.mechanism, "perf-task-clock");

        r.cpuUserUs = 1234567;
        r.cpuSystemUs = 5;
        r.wallUs = 2500000;
        r.activeUs = 1234572;
        r.ticks = 77;
        r.counts[kInRange] = 3 + 4294967295ull + 1 + 7; // the bins and the saturated samples
        r.counts[kBelow] = 11;
        r.counts[kAbove] = 12;
        r.counts[kShared] = 30;
        r.counts[kVdso] = 2;
        r.counts[kAnon] = 1;
        r.counts[kUnknown] = 4;
        r.counts[kLost] = 5;
        r.saturated = 7;
    }

} // namespace

ProfileOutput GoldenProfile::output() const
{
    ProfileOutput out;
    out.record = &record;
    out.bins = bins.data();
    out.objects = objects.data();
    out.objectCount = objects.size();
    out.hits = hits.data();
    out.hitCount = hits.size();
    return out;
}

std::unique_ptr<GoldenProfile> makeGoldenProfile()
{
    auto golden = std::make_unique<GoldenProfile>();
    fillRecord(golden->record);
    EXPECT_EQ(golden->record.layout.count, golden->bins.size());
    golden->bins[0] = 3; // 0x1000
    golden->bins[5] = UINT32_MAX; // 0x1028
    golden->bins[31] = 1; // 0x10f8, the last bin
    golden->libcBuildId = { 0xab, 0xcd, 0x01, 0x02 };
    golden->objects[0] = { "/usr/lib/libc.so.6", 20, golden->libcBuildId.data(), 4 };
    golden->objects[1] = { "/tmp/weird \"lib\"\n.so", 10, nullptr, 0 };
    golden->hits[0] = { 0, 0x1a2b0, 15 };
    golden->hits[1] = { 0, 0x1a2c4, 5 };
    golden->hits[2] = { 1, 0x400, 10 };
    return golden;
}

} // namespace ppe::test
