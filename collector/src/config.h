// The collector's settings from the environment, with PPE's rules: every value must be a positive
// decimal integer; an error keeps the default and prints one warning.
#pragma once

#include "ppe/core/profile_record.h"

#include <cstdint>

namespace ppe {

inline constexpr uint64_t kDefaultPages = 2048; // 1 MiB of counters
inline constexpr uint64_t kMaxPages = 1u << 21; // 1 GiB of counters
inline constexpr uint64_t kDefaultInterval = 5000; // 0.5 ms in 100 ns units
inline constexpr uint64_t kMinInterval = 100; // 10 us: faster only measures the signal cost
inline constexpr uint64_t kMaxInterval = 36'000'000'000; // one hour

enum class TimerChoice { Auto, Perf, Itimer, Posix };

struct Config {
    bool enabled = false; // PPE_ON is set
    uint64_t pages = kDefaultPages; // PPE_MEM
    uint64_t interval = kDefaultInterval; // PPE_INT, 100 ns units
    SampleMode mode = SampleMode::Real; // PPE_MODE
    TimerChoice timer = TimerChoice::Auto; // PPE_TIMER
    uint64_t checkpoint = 0; // PPE_CHECKPOINT: seconds between snapshots, 0 = none
    const char* output = nullptr; // PPE_OUT (points into the environment)
};

// Reads PPE_ON, PPE_OUT, PPE_MEM, PPE_INT, PPE_MODE, PPE_TIMER and PPE_CHECKPOINT through `lookup` (getenv in the
// collector; a table in tests), warning once per bad value through `warn`.
using LookupFn = const char* (*)(const char* name);
using WarnFn = void (*)(const char* name, const char* value, const char* problem, const char* kept);
Config readConfig(LookupFn lookup, WarnFn warn);

} // namespace ppe
