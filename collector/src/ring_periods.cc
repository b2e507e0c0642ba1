#include "ring_periods.h"

#include "collector_state.h"
#include "perf_events.h"
#include "period_dither.h"
#include "ring_sampler.h"
#include "service_thread.h"
#include "task_list.h"

#include <atomic>
#include <cerrno>
#include <climits>
#include <linux/futex.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr int kMaxRings = 1024; // CPUs, as ring_sampler.cc
    constexpr uint64_t kDitherNs = 50'000'000; // the period changes this often (at the drains' jitter)
    // A creator waits this long for the collector thread to put the period back, then creates the
    // thread anyway, at the varied period. On two CPUs at a load of 10 the answer took 3 ms on
    // average and 23 ms at worst (a woken thread waits its turn): a late creation costs time, one
    // that gives up costs the new thread's samples their rate, so the wait is long.
    constexpr uint64_t kRestoreWaitNs = 100'000'000;

    constexpr int kChanges = 16; // rate changes remembered (a drain comes every 50 ms at most)
    constexpr int kExcessBits = 10; // a rate's excess over the asked one, below kRateScale

    enum Periods { kAsked, kVaried, kRestoring };

    // Constant-initialised to zeros (in .bss, not copied into the program's pages at load, and set
    // before any constructor: the collector starts from one), `where` None.
    struct State {
        int fds[kMaxRings] {};
        std::atomic<int> count { 0 };
        std::atomic<RingDescriptors> where { RingDescriptors::None }; // read by creating threads
        std::atomic<bool> handed { false }; // Handed descriptors now in the collector thread's table alone
        std::atomic<int> periods { kAsked }; // Periods
        std::atomic<bool> restoreAsked { false }; // a creator's request, until the collector thread answers
        // Handed descriptors released while the collector thread still runs (a park that timed out):
        // it closes them (changeRingPeriods), or they would sample for the rest of the run.
        int orphans[kMaxRings] {};
        std::atomic<int> orphanCount { 0 };
        pid_t opener = 0;
        uint64_t intervalNs = 0;
        uint64_t changedNs = 0; // when the period last changed
        uint64_t ranNs = 0; // the opener's CPU time then
        DitherState dither {};
        // The last kChanges rates (excess over the asked one) and when they began, for thinning the
        // samples (ringRateExcessAt): each entry (ns since openedNs << 10) | excess, one word so that
        // a reader never sees half an entry. Written by one thread at a time (the changes exclude
        // each other, period_dither.h).
        std::atomic<uint64_t> changes[kChanges] {};
        std::atomic<uint32_t> changeCount { 0 };
        uint64_t openedNs = 0;
    };

    constinit State g_periods;

    // Notes that the rate `excess` above the asked one begins now, before the events take it: the
    // samples between the two (microseconds) are thinned at the new rate.
    void noteRate(uint32_t excess)
    {
        State& s = g_periods;
        const uint64_t since = nowNs(CLOCK_MONOTONIC) - s.openedNs;
        const uint32_t n = s.changeCount.load(std::memory_order_relaxed);
        s.changes[n % kChanges].store(since << kExcessBits | excess, std::memory_order_release);
        s.changeCount.store(n + 1, std::memory_order_release);
    }

    void setPeriods(uint32_t excess)
    {
        State& s = g_periods;
        noteRate(excess);
        uint64_t period = periodWithExcess(s.intervalNs, excess);
        const int count = s.count.load(std::memory_order_acquire);
        for (int i = 0; i < count; ++i)
            controlPerfEvent(s.fds[i], PERF_EVENT_IOC_PERIOD, reinterpret_cast<unsigned long>(&period));
    }

    void putAskedBack() { setPeriods(0); }

    // The descriptors can be used on this thread: placed ones anywhere; handed ones by the collector
    // thread once it has them, and by the program's threads before.
    bool usableHere()
    {
        const State& s = g_periods;
        if (s.where.load(std::memory_order_acquire) == RingDescriptors::Placed)
            return true;
        return s.where.load(std::memory_order_acquire) == RingDescriptors::Handed
            && s.handed.load(std::memory_order_acquire) == onServiceThread();
    }

    void wakeCreators()
    {
        syscall(
            SYS_futex, reinterpret_cast<int*>(&g_periods.periods), FUTEX_WAKE_PRIVATE, INT_MAX, nullptr, nullptr, 0);
    }

    // The asked period is in place: the state says so, and creating threads waiting for it go on.
    void askedInPlace()
    {
        g_periods.periods.store(kAsked, std::memory_order_release);
        wakeCreators();
    }

    // Waits while the asked period is being put back, until `deadline` at most; false if it came.
    bool awaitRestore(uint64_t deadline)
    {
        State& s = g_periods;
        while (s.periods.load(std::memory_order_acquire) == kRestoring) {
            const uint64_t now = nowNs(CLOCK_MONOTONIC);
            if (now >= deadline)
                return false;
            const timespec slice { 0, long(deadline - now < 1'000'000 ? deadline - now : 1'000'000) };
            syscall(SYS_futex, reinterpret_cast<int*>(&s.periods), FUTEX_WAIT_PRIVATE, kRestoring, &slice, nullptr, 0);
        }
        return true;
    }

    // The Restoring state back to Varied (the new thread keeps the varied period, a bias of at most a
    // stretch's rate for it), unless an answer came meanwhile.
    void giveUpRestore()
    {
        int restoring = kRestoring;
        g_periods.periods.compare_exchange_strong(restoring, kVaried, std::memory_order_acq_rel);
        wakeCreators();
    }

    // A creator's request to the collector thread (the Restoring state is the caller's): waits until
    // the asked period is back, or gives up after kRestoreWaitNs. An unanswered request stays
    // asked: the creations that follow do not wait for it again (the collector thread is busy or
    // starved), and its answer puts the asked period back whenever it comes.
    void askCollectorToRestore(int job)
    {
        State& s = g_periods;
        if (s.restoreAsked.exchange(true, std::memory_order_acq_rel))
            return giveUpRestore(); // an earlier request is still unanswered
        requestServiceJob(job);
        if (!awaitRestore(nowNs(CLOCK_MONOTONIC) + kRestoreWaitNs))
            giveUpRestore();
    }

    // On the collector thread: closes the descriptors released while it ran.
    void closeOrphans()
    {
        State& s = g_periods;
        const int count = s.orphanCount.exchange(0, std::memory_order_acq_rel);
        for (int i = 0; i < count; ++i)
            closePerfEvent(s.orphans[i]);
    }

    // On the collector thread: every kDitherNs, once the opening thread has run and while it runs,
    // the next period; never while a thread is being created (it would keep the varied period for
    // its life). A change restarts the count with the new period in full, and a sleeping thread's
    // restarts as it wakes: a change made while it slept put the stretch's samples at fixed
    // places after a wake-up (its first one period after it). Work periodic in wall time read
    // 0.4 points off on average (timer_loop's 70:30: a period under the burst's length put the
    // first sample in its last 30 %). Made while the thread runs, at a moment the program does not
    // choose, the restart falls anywhere.
    void dither(uint64_t nowNs)
    {
        State& s = g_periods;
        const uint64_t cpuNs = threadCpuNs(s.opener);
        if (cpuNs == s.ranNs || threadState(s.opener) != 'R' || !beginPeriodChange())
            return; // it has not run (or ended), it sleeps, or a thread is being created
        s.changedNs = nowNs;
        s.ranNs = cpuNs;
        setPeriods(nextDitheredExcess(s.dither));
        s.periods.store(kVaried, std::memory_order_release);
        endPeriodChange();
    }

} // namespace

uint64_t openingRingPeriod(pid_t opener, uint64_t intervalNs, uint64_t seed, RingDescriptors& where)
{
    State& s = g_periods;
    s.count.store(0, std::memory_order_release);
    s.where.store(where, std::memory_order_release);
    s.handed.store(false, std::memory_order_release);
    s.opener = opener;
    s.intervalNs = intervalNs;
    s.dither = seedDither(uint32_t(seed), 0);
    s.ranNs = threadCpuNs(opener);
    s.openedNs = nowNs(CLOCK_MONOTONIC);
    s.changeCount.store(0, std::memory_order_release);
    const bool vary = where != RingDescriptors::None && beginPeriodChange();
    if (!vary) { // opened at the asked period, never changed
        where = RingDescriptors::None;
        s.where.store(where, std::memory_order_release);
    }
    // Handed ones open varied too (a first stretch at the asked period was in phase with a loop of
    // one interval under load, when the collector thread's first change came late); a hand-over
    // that fails puts the asked period back (handRingDescriptors).
    s.periods.store(vary ? kVaried : kAsked, std::memory_order_release);
    const uint32_t excess = vary ? nextDitheredExcess(s.dither) : 0;
    noteRate(excess);
    return periodWithExcess(intervalNs, excess);
}

void keepRingDescriptor(int i, int fd)
{
    if (i >= 0 && i < kMaxRings)
        g_periods.fds[i] = fd;
}

void ringsOpened(int count)
{
    State& s = g_periods;
    if (s.where.load(std::memory_order_acquire) == RingDescriptors::None)
        return;
    s.count.store(count, std::memory_order_release);
    endPeriodChange();
}

void forgetRingDescriptors()
{
    State& s = g_periods;
    const int count = s.count.exchange(0, std::memory_order_acq_rel);
    // Handed ones not yet copied are the program's table's to close; copied ones live in the
    // collector thread's table: closed there when it still runs, else gone with it.
    const bool handed = s.where.load(std::memory_order_acquire) == RingDescriptors::Handed;
    const bool inProgramTable = handed && !s.handed.load(std::memory_order_acquire);
    const bool orphaned = handed && !inProgramTable && !onServiceThread() && serviceThreadServes();
    for (int i = 0; i < count; ++i) {
        if (inProgramTable || onServiceThread())
            closePerfEvent(s.fds[i]);
        else if (orphaned && s.orphanCount.load(std::memory_order_relaxed) < kMaxRings)
            s.orphans[s.orphanCount.fetch_add(1, std::memory_order_acq_rel)] = s.fds[i];
        else
            forgetPerfEvent(s.fds[i]);
    }
    s.where.store(RingDescriptors::None, std::memory_order_release);
    s.periods.store(kAsked, std::memory_order_release);
}

bool ringDescriptorsCanBeHanded() { return serviceThreadStartPending(); }

void handRingDescriptors(bool ownTable)
{
    State& s = g_periods;
    if (s.where.load(std::memory_order_acquire) != RingDescriptors::Handed || s.handed.load(std::memory_order_acquire))
        return;
    // Until `handed`, creating threads put the period back through the program's copies: none may be
    // inside while they go (a ppe_set re-arming runs beside the program's threads). Changes count
    // (period_dither.h): the collector thread's first one may begin as soon as `handed` is set.
    while (!beginPeriodChange())
        sched_yield();
    if (ownTable) {
        s.handed.store(true, std::memory_order_release);
        endPeriodChange(); // from now on creating threads ask the collector thread
        const int count = s.count.load(std::memory_order_acquire);
        for (int i = 0; i < count; ++i)
            if (ownsPerfEvent(s.fds[i]))
                close(s.fds[i]); // the program's copy; the collector thread's stays registered
    } else { // no table of its own (or no thread): nothing may stay in the program's
        putAskedBack(); // for good: nobody could change it again
        forgetRingDescriptors();
        endPeriodChange();
    }
}

void ringDescriptorsLeaving()
{
    State& s = g_periods;
    if (s.where.load(std::memory_order_acquire) != RingDescriptors::Handed || !s.handed.load(std::memory_order_acquire))
        return;
    putAskedBack(); // its table, and the descriptors with it, go with it
    const int count = s.count.exchange(0, std::memory_order_acq_rel);
    for (int i = 0; i < count; ++i)
        forgetPerfEvent(s.fds[i]);
    s.where.store(RingDescriptors::None, std::memory_order_release);
    askedInPlace();
}

void changeRingPeriods(uint64_t nowNs)
{
    State& s = g_periods;
    closeOrphans();
    const RingDescriptors where = s.where.load(std::memory_order_acquire);
    if (where != RingDescriptors::None && !usableHere())
        return;
    if (s.restoreAsked.exchange(false, std::memory_order_acq_rel)) { // whatever the state is now
        if (where != RingDescriptors::None)
            putAskedBack();
        askedInPlace();
        return;
    }
    if (where != RingDescriptors::None && nowNs - s.changedNs >= kDitherNs)
        dither(nowNs);
}

void beginThreadCreation()
{
    State& s = g_periods;
    const int savedErrno = errno; // fork's prepare handler too: glibc keeps errno only when fork fails
    if (!holdPeriodChanges())
        return;
    // One creator puts the asked periods back; another that comes meanwhile waits for it.
    int varied = kVaried;
    if (s.periods.compare_exchange_strong(varied, kRestoring, std::memory_order_acq_rel)) {
        if (usableHere()) {
            putAskedBack();
            askedInPlace();
        } else if (s.where.load(std::memory_order_acquire) == RingDescriptors::Handed && serviceThreadServes()) {
            askCollectorToRestore(ringDrainJob());
        } else if (s.where.load(std::memory_order_acquire) == RingDescriptors::None) {
            askedInPlace(); // put back for good as the thread left
        } else { // parked, or stopped at the end: the new thread keeps the varied period
            giveUpRestore();
        }
    }
    awaitRestore(nowNs(CLOCK_MONOTONIC) + kRestoreWaitNs); // another creator's
    errno = savedErrno;
}

void endThreadCreation()
{
    const int savedErrno = errno;
    // The kernel would swap the new thread's events with its creator's on a context switch between
    // the two (perf_events.h): the creator's periods (varied) would then sample the new thread for
    // a while, and a thread's rate would depend on whom it shares a CPU with.
    if (ringsOpen())
        separatePerfContext();
    releasePeriodChanges();
    errno = savedErrno;
}

uint32_t ringRateExcessAt(uint64_t timeNs)
{
    const State& s = g_periods;
    const uint32_t n = s.changeCount.load(std::memory_order_acquire);
    const uint64_t since = timeNs > s.openedNs ? timeNs - s.openedNs : 0;
    uint64_t entry = 0;
    for (uint32_t k = n; k > 0 && k + kChanges > n; --k) {
        entry = s.changes[(k - 1) % kChanges].load(std::memory_order_acquire);
        if (entry >> kExcessBits <= since)
            break; // the rate in force when the sample was taken
    }
    return uint32_t(entry & ((1u << kExcessBits) - 1));
}

} // namespace ppe
