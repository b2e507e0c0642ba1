// The report's words on missing samples (issue 38: their one home; the collector's end message gives
// counts only, by the same thresholds, core/missing_samples.h).
#include "missing_samples.h"

#include "ppe/core/missing_samples.h"
#include "sampled_time.h"

#include <fmt/format.h>

namespace ppe::formatter {

namespace {

    // Why perf-ring took too few samples when the kernel neither lost (full rings) nor throttled any
    // (issue 35: the words blamed throttling, which had not happened, for 6000 threads of 0.25 ms).
    constexpr const char* kShortThreadsReason
        = "the kernel neither lost nor throttled any: threads that ran for only a few sampling intervals each "
          "(a new thread's first sample comes one full interval of its own CPU time after it starts, and its last "
          "part of an interval is never sampled)";
    constexpr const char* kThrottledReason
        = "the kernel throttled the perf events (faster than kernel.perf_event_max_sample_rate allows: ask for a "
          "lower rate)";

    std::string missingReason(const Profile& p)
    {
        const bool ring = p.mechanism == Mechanism::PerfRing;
        if (ring && p.ringLost > 0)
            return fmt::format("the kernel lost {} samples to full ring buffers", p.ringLost);
        if (ring && p.ringThrottled > 0)
            return fmt::format("{} ({} times)", kThrottledReason, p.ringThrottled);
        if (ring && p.ringThrottledKnown)
            return kShortThreadsReason;
        if (ring) // a profile before issue 35: throttles were not counted
            return "the kernel throttled the perf events (kernel.perf_event_max_sample_rate), or threads ran for "
                   "only a few sampling intervals each";
        if (p.mechanism == Mechanism::ItimerProf && p.ticks > 0)
            return "itimer-prof fires only on the scheduler tick, whatever rate is asked: each sample stands for its "
                   "thread's CPU time since its last, so the shares are whole but their errors are those of the "
                   "samples taken (the perf mechanisms, allowed at kernel.perf_event_paranoid <= 2, take the asked "
                   "rate)";
        if (p.mechanism == Mechanism::ItimerProf)
            return "itimer-prof fires only on the scheduler tick, whatever rate is asked (the perf mechanisms, "
                   "allowed at kernel.perf_event_paranoid <= 2, take the asked rate)";
        return fmt::format("threads that block signals are not sampled by signal mechanisms ({}); try PPE_TIMER=ring",
            p.mechanism.name());
    }

    // Mechanisms whose process-directed signal goes to any thread that does not block it: a thread
    // that blocks it has its CPU time sampled in another, and the process's count is whole. (The
    // perf mechanisms sample user time only, which a thread's CPU time does not separate from system
    // time; the threads perf-task-clock misses show in the process's count, and perf-ring misses none.)
    bool processDirected(const Profile& p) { return signalsProcessDirected(p.mechanism.kind()); }

    // Samples a CPU second of one thread should give: the asked rate for the real-time timer (which
    // samples a thread while it waits too, so above that); what the threads whose CPU time is known
    // achieved together for the tick-bound itimer-prof.
    double threadRate(const Profile& p)
    {
        if (p.mechanism == Mechanism::PosixTimer)
            return p.requestedRate;
        double samples = 0;
        double cpu = 0;
        for (const ThreadSamples& t : p.threads)
            if (t.tid && t.cpuSeconds > 0) {
                samples += double(t.samples);
                cpu += t.cpuSeconds;
            }
        return cpu > 0 ? samples / cpu : 0;
    }

    // The threads that took far fewer samples than their CPU time should have given, in words; "" if none.
    std::string missingThreads(const Profile& p)
    {
        if (!processDirected(p))
            return "";
        const double rate = threadRate(p);
        std::string said;
        for (const ThreadSamples& t : p.threads) {
            if (!t.tid || !threadMissesSamples(t.cpuSeconds, t.samples, rate))
                continue;
            said += fmt::format(
                "{}thread {} \"{}\" took {} samples for its {:.2f} s of CPU time (about {:.0f} expected)",
                said.empty() ? "" : "; ", t.tid, t.name, t.samples, t.cpuSeconds, t.cpuSeconds * rate);
        }
        if (said.empty())
            return said;
        return said
            + fmt::format(": it blocks the sampling signal, which {} sent to another thread ({}); PPE_TIMER=ring "
                          "samples every thread",
                p.mechanism.name(),
                p.mechanism == Mechanism::ItimerProf && p.ticks > 0
                    ? "whose samples stand for its own CPU time only: this thread's is in none"
                    : "its time is counted in the wrong place");
    }

} // namespace

// Samples missing against the process's CPU time, and threads missing against their own: a thread
// that blocks the sampling signal is never sampled, and these counts are the only trace it leaves.
void addMissingSamples(const Profile& p, Totals& t)
{
    const bool perf = samplesUserTimeOnly(p);
    if ((!perf && !processDirected(p)) || p.requestedRate <= 0 || p.activeTime <= 0)
        return;
    const double cpu = p.cpuUser + p.cpuSystem;
    const double userShare = perf && cpu > 0 ? p.cpuUser / cpu : 1.0;
    std::string said;
    if (!countsTimerTicks(p.mechanism.kind())) { // the real-time timer's rate is wall time, not CPU time
        const double expected = p.activeTime * userShare * p.requestedRate;
        const uint64_t taken = samplesTaken(p.mechanism.kind(), p.ticks, p.total);
        if (expected >= kMinExpectedSamples) {
            t.expectedSamples = expected;
            t.sampledPercent = 100.0 * double(taken) / expected;
        }
        if (samplesMissing(expected, double(taken), kMissingPercent))
            said = fmt::format("only {:.0f}% of the samples the process's CPU time should have given were "
                               "taken ({} of {:.0f}): {}",
                t.sampledPercent, taken, expected, missingReason(p));
    }
    const std::string threads = missingThreads(p);
    if (!threads.empty())
        said += (said.empty() ? "" : "; ") + threads;
    t.missingSamples = said;
}

} // namespace ppe::formatter
