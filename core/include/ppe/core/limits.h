// The collector's settings and their limits, one copy for the collector (PPE_* variables) and
// the launcher (its options), so that both accept and refuse the same values.
#pragma once

#include <cstdint>

namespace ppe {

inline constexpr uint64_t kDefaultPages = 2048; // PPE_MEM: 1 MiB of counters
inline constexpr uint64_t kMaxPages = 1u << 21; // 1 GiB of counters
inline constexpr uint64_t kDefaultInterval = 5000; // PPE_INT: 0.5 ms in 100 ns units
inline constexpr uint64_t kMinInterval = 100; // 10 us: faster only measures the signal cost
inline constexpr uint64_t kMaxInterval = 36'000'000'000; // one hour
inline constexpr uint64_t kIntervalsPerSecond = 10'000'000; // 100 ns units
inline constexpr uint64_t kMaxFrequencyHz = kIntervalsPerSecond / kMinInterval; // ppe --frequency
inline constexpr uint64_t kMaxCheckpointSeconds = 365 * 86400; // PPE_CHECKPOINT: a year

// The most nodes a call tree may have (PPE_CALL_NODES' largest, issue 39; a reader's limit too).
inline constexpr uint32_t kMaxCallNodes = 1u << 22;

} // namespace ppe
