#include "period_dither.h"

#include <atomic>
#include <sched.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace ppe {

namespace {
    constexpr uint32_t kGolden = 0x9E3779B9u; // 2^32 / the golden ratio
    constexpr uint64_t kGap = 64; // no rate within 1/16 of the asked one
    constexpr uint64_t kSpread = 512; // nor further than 1/2

    std::atomic<bool> g_allowed { false };
    std::atomic<int> g_changing { 0 }; // changes under way (the collector thread's, a hand-over)
    std::atomic<int> g_creating { 0 };
    std::atomic<pid_t> g_collectorCreator { 0 }; // the thread creating the collector's, or 0

    pid_t currentTid() { return pid_t(syscall(SYS_gettid)); }
}

DitherState seedDither(uint32_t random, int index)
{
    DitherState state;
    state.position = random + uint32_t(index) * 0x85EBCA6Bu;
    return state;
}

uint64_t threadCpuNs(pid_t tid)
{
    // What pthread_getcpuclockid gives for a pthread_t: CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED, the
    // thread id complemented above them.
    const clockid_t clock = clockid_t((~unsigned(tid)) << 3 | 6u);
    timespec t {};
    if (tid <= 0 || clock_gettime(clock, &t) != 0)
        return 0;
    return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_nsec);
}

uint32_t nextDitheredExcess(DitherState& state)
{
    state.position += kGolden;
    // d in [kGap, kSpread) 1024ths of the asked rate.
    return uint32_t(kGap + (uint64_t(state.position) * (kSpread - kGap) >> 32));
}

uint64_t periodWithExcess(uint64_t intervalNs, uint32_t excess)
{
    return intervalNs * kRateScale / (kRateScale + excess);
}

bool keepVariedSample(uint32_t excess, uint64_t& random)
{
    return excess == 0 || nextRandom(random) % (kRateScale + excess) < kRateScale;
}

uint32_t excessOfPeriod(uint64_t intervalNs, uint64_t periodNs)
{
    if (periodNs == 0 || periodNs >= intervalNs)
        return 0;
    const uint64_t rate = (intervalNs * kRateScale + periodNs / 2) / periodNs; // in kRateScale-ths of the asked
    return rate - kRateScale >= kRateScale ? kRateScale - 1 : uint32_t(rate - kRateScale);
}

uint64_t nextRandom(uint64_t& state)
{
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

uint64_t randomSeed(pid_t pid, pid_t tid)
{
    uint64_t random = 0;
    if (getrandom(&random, sizeof random, GRND_NONBLOCK) != ssize_t(sizeof random))
        random = uint64_t(pid) * 0x9E3779B97F4A7C15u ^ uint64_t(tid);
    return random | 1;
}

void allowPeriodChanges() { g_allowed.store(true, std::memory_order_release); }

bool beginPeriodChange()
{
    if (!g_allowed.load(std::memory_order_acquire))
        return false;
    g_changing.fetch_add(1, std::memory_order_seq_cst);
    if (g_creating.load(std::memory_order_seq_cst) == 0)
        return true;
    g_changing.fetch_sub(1, std::memory_order_seq_cst);
    return false;
}

void endPeriodChange() { g_changing.fetch_sub(1, std::memory_order_seq_cst); }

bool holdPeriodChanges()
{
    if (g_collectorCreator.load(std::memory_order_acquire) == currentTid())
        return false;
    g_creating.fetch_add(1, std::memory_order_seq_cst);
    while (g_changing.load(std::memory_order_seq_cst) != 0)
        sched_yield();
    return true;
}

void releasePeriodChanges()
{
    if (g_collectorCreator.load(std::memory_order_acquire) != currentTid())
        g_creating.fetch_sub(1, std::memory_order_seq_cst);
}

void markCollectorCreation(bool on) { g_collectorCreator.store(on ? currentTid() : 0, std::memory_order_release); }

} // namespace ppe
