// The fixed profile of the round-trip and reader tests: a record with every field set to a
// distinctive value, and the exact text docs/ppe-format.md says the writer makes of it.
#pragma once

#include "ppe/core/ppe_writer.h"

#include <array>
#include <cstdint>
#include <memory>
#include <string_view>

namespace ppe::test {

// Written by hand from docs/ppe-format.md, line by line; any change of the format breaks it.
// Line numbers (for the reader's errors): 1 ppe-profile, 9 pid, 14 build-id, 16 load-bias, 17 range,
// 31 count in-range, 40 count total, 41-42 object, 43-45 object-hit, 46-48 bin, 49 end.
inline constexpr std::string_view kGoldenText = R"ppe(ppe-profile 1
producer "libppe 9.8.7"
status checkpoint
end-reason "signal 15"
host "node-7"
cpu "Test CPU\t@ 1.00GHz"
arch "x86_64"
os "Linux 6.1.0-test"
pid 4242
parent-pid 4241
start-time 2000-02-29T00:00:00Z
end-time 2000-02-29T01:02:03Z
image "/opt/app/bin/pr\xffg"
build-id 0123456789abcdeffedcba987654321000ff0ff0
command "./prog" "--name=a b \"q\""
load-bias 0x555555554000
range 0x1000 0x1100
mechanism "perf-task-clock"
mode 1 cpu
interval 5000
requested-rate 2000.000
achieved-rate 3478912020.522
granularity 1
bin-width 8
bin-count 32
max-bin 4294967295
cpu-time 1.234567 0.000005
wall-time 2.500000
active-time 1.234572
ticks 77
count in-range 4294967306
count below 11
count above 12
count shared 30
count vdso 2
count anon 1
count unknown 4
count lost 5
count saturated 7
count total 4294967371
object 0 20 abcd0102 "/usr/lib/libc.so.6"
object 1 10 none "/tmp/weird \"lib\"\n.so"
object-hit 0 0x1a2b0 15
object-hit 0 0x1a2c4 5
object-hit 1 0x400 10
bin 0x1000 3
bin 0x1028 4294967295
bin 0x10f8 1
end
)ppe";

inline constexpr size_t kGoldenLines = 49;

// The record and tables behind kGoldenText.
struct GoldenProfile {
    ProfileRecord record {};
    std::array<uint32_t, 32> bins {};
    std::array<uint8_t, 4> libcBuildId {};
    std::array<ObjectInfo, 2> objects {};
    std::array<ObjectCountRecord, 3> hits {};

    ProfileOutput output() const;
};

// A ProfileRecord is over 12 KiB: the golden profile lives on the heap.
std::unique_ptr<GoldenProfile> makeGoldenProfile();

} // namespace ppe::test
