// When samples are missing: the one rule that the collector's end message and the report header
// (formatter) both apply, to the process and to each of its threads.
#pragma once

#include <cstdint>

namespace ppe {

// Fewer expected samples than this are too few to tell a missing share from chance.
inline constexpr double kMinExpectedSamples = 200;
// The process: below this share of the samples its CPU time should have given, say so.
inline constexpr double kMissingPercent = 80;
// One thread: below this share of the samples its own CPU time should have given at the rate the
// process achieved. Lower than the process's: a thread's CPU time is read at checkpoints and at the
// end, and a thread that ended in between has its last reading.
inline constexpr double kThreadMissingPercent = 50;

// Whether `taken` samples fall short of `expected` by more than `percent` allows.
constexpr bool samplesMissing(double expected, double taken, double percent)
{
    return expected >= kMinExpectedSamples && taken * 100 < expected * percent;
}

// Whether a thread that ran `cpuSeconds` took too few samples at `rate` samples a CPU second: it
// blocks the sampling signal, or a process-directed signal went to another thread.
constexpr bool threadMissesSamples(double cpuSeconds, uint64_t samples, double rate)
{
    return samplesMissing(cpuSeconds * rate, double(samples), kThreadMissingPercent);
}

} // namespace ppe
