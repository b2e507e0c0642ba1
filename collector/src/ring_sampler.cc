#include "ring_sampler.h"

#include "fork_table.h"
#include "initially.h"
#include "messages.h"
#include "perf_events.h"
#include "period_dither.h"
#include "ring_periods.h"
#include "ring_state.h"
#include "sampler.h"
#include "service_thread.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

namespace ppe {

namespace {

    using namespace rings;

    perf_event_attr ringAttr(uint64_t periodNs, bool recent)
    {
        perf_event_attr attr = taskClockAttr(periodNs);
        attr.sample_type
            = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_PERIOD;
        attr.use_clockid = 1;
        attr.clockid = CLOCK_MONOTONIC;
        if (g_rings.stackBytes)
            askUserState(attr, g_rings.stackBytes);
        attr.wakeup_events = 0; // nobody polls: the collector thread drains on its own period
        // Forked children inherit the events (no inherit_thread): their first samples land here, held
        // for them (fork_table.h) until they open rings of their own.
        if (recent) // Linux 5.13
            attr.remove_on_exec = 1; // a new image is not sampled into rings nobody reads
        return attr;
    }

    // The event of `cpu`, with the 5.13 flags when the kernel has them; -1 with errno on failure.
    // `placed`: its descriptor kept high (perf_events.h); else a transient one, the event enabled at
    // once (nothing could enable it later).
    int openEvent(int cpu, uint64_t periodNs, bool placed)
    {
        perf_event_attr attr = ringAttr(periodNs, true);
        attr.disabled = placed;
        int fd = placed ? openPerfEvent(attr, 0, cpu) : openTransientPerfEvent(attr, 0, cpu);
        if (fd < 0 && errno != EACCES && errno != EPERM && errno != ENODEV && errno != EMFILE) {
            attr = ringAttr(periodNs, false);
            attr.disabled = placed;
            fd = placed ? openPerfEvent(attr, 0, cpu) : openTransientPerfEvent(attr, 0, cpu);
        }
        return fd;
    }

    // Says once that the program took ring `i`'s descriptor: the collector leaves that number alone.
    void tellOrphan(int i, int fd)
    {
        State& s = g_rings;
        if (s.toldOrphan)
            return;
        s.toldOrphan = true;
        say({ "perf-ring: the program closed or replaced the collector's descriptor ", Part::dec(uint64_t(fd)),
            " (ring ", Part::dec(uint64_t(i)),
            "); that number is the program's: the ring is read through its mapping, never through it" });
    }

    // Closes ring `i`'s descriptor if it is still the collector's (telling once when it is not).
    void closeDescriptor(int i, bool tell)
    {
        Ring& ring = g_rings.rings[i];
        if (ring.fd >= 0 && !closePerfEvent(ring.fd) && tell)
            tellOrphan(i, ring.fd);
        ring.fd = -1;
    }

    char* mapRing(int fd)
    {
        const State& s = g_rings;
        void* memory = mmap(nullptr, (1 + s.dataPages) * s.pageBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        return memory == MAP_FAILED ? nullptr : static_cast<char*>(memory);
    }

    // Unmaps and closes the published rings (none may be draining).
    void releaseRings()
    {
        State& s = g_rings;
        const int count = s.count.exchange(0, std::memory_order_acq_rel);
        for (int i = 0; i < count; ++i) {
            munmap(s.rings[i].base, (1 + s.dataPages) * s.pageBytes);
            closeDescriptor(i, true);
        }
        forgetRingDescriptors();
    }

    uint64_t powerOfTwoAtLeast(uint64_t n)
    {
        uint64_t p = 1;
        while (p < n)
            p *= 2;
        return p;
    }

    uint64_t pagesFor(uint64_t intervalNs, uint64_t pageBytes)
    {
        const uint64_t samples = kBufferedNs / (intervalNs ? intervalNs : 1) + 1;
        const uint64_t pages = powerOfTwoAtLeast((samples * recordBytes() + pageBytes - 1) / pageBytes);
        return pages < kMinDataPages ? kMinDataPages : pages > kMaxDataPages ? kMaxDataPages : pages;
    }

    const char* refusal(int error)
    {
        return error == EACCES || error == EPERM ? "perf events not permitted (kernel.perf_event_paranoid > 2?)"
                                                 : "perf_event_open failed (no software task-clock events?)";
    }

    // Ring `opened`'s descriptor: placed ones stay in the ring; the period changes keep theirs and
    // handed ones (ring_periods.h); any other is closed, the mapping keeping the event. False when a
    // handed one cannot be registered (its period could not be put back: the opening fails).
    bool keepDescriptor(RingDescriptors periods, bool placed, int opened, int fd)
    {
        if (periods == RingDescriptors::Placed || (periods == RingDescriptors::Handed && rememberPerfEvent(fd))) {
            keepRingDescriptor(opened, fd);
            return true;
        }
        if (!placed)
            close(fd);
        return periods == RingDescriptors::None;
    }

    // Opens the rings of every online CPU into g_rings (count 0 on entry); 0 or the errno of the
    // first failure, all or none: a CPU without its ring would run threads that are never sampled.
    int openEach(RingDescriptors where)
    {
        State& s = g_rings;
        int opened = 0;
        const bool placed = where == RingDescriptors::Placed;
        const uint64_t period = openingRingPeriod(s.opener, s.intervalNs, s.random, where); // where: None if fixed
        for (int cpu = 0; cpu < s.cpus; ++cpu) {
            const int fd = openEvent(cpu, period, placed);
            if (fd < 0 && errno == ENODEV)
                continue; // an offline CPU runs nothing
            char* base = fd < 0 ? nullptr : mapRing(fd);
            int error = fd < 0 || base ? errno
                : errno == EPERM       ? ENOMEM
                                       : errno; // mmap's EPERM: the locked-memory limit
            uint64_t id = 0;
            if (base && ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
                id = 0;
            if (!base && fd >= 0) {
                placed ? void(closePerfEvent(fd)) : void(close(fd));
            } else if (base && !keepDescriptor(where, placed, opened, fd)) {
                munmap(base, (1 + s.dataPages) * s.pageBytes);
                base = nullptr;
                error = ENFILE;
            }
            if (!base) {
                ringsOpened(opened);
                releaseRings();
                return error;
            }
            s.rings[opened++] = Ring { placed ? fd : -1, base, id };
            s.count.store(opened, std::memory_order_release);
        }
        ringsOpened(opened);
        return opened ? 0 : ENODEV;
    }

    // openEach with the descriptors kept high where the descriptor limits leave room, else handed
    // to the collector thread's own table when its start is to come (`mayHand`: not in a forked
    // child, whose restart may not come), else none (ring_periods.h).
    int openEachPlaced(bool mayHand)
    {
        const bool placed = beginPerfPlacement(g_rings.cpus);
        const int error = openEach(placed                 ? RingDescriptors::Placed
                : mayHand && ringDescriptorsCanBeHanded() ? RingDescriptors::Handed
                                                          : RingDescriptors::None);
        if (placed)
            endPerfPlacement();
        return error;
    }

    // openEach, with smaller rings while the locked-memory limit refuses them (many processes of
    // one user, each with rings on every CPU, share perf_event_mlock_kb).
    bool openAll(bool mayHand, const char** why)
    {
        State& s = g_rings;
        for (;;) {
            const int error = openEachPlaced(mayHand);
            if (!error)
                return true;
            // A ring must hold a few records: with call paths' stack copies (8 KiB each) a small one
            // would lose every sample. Then the copies go, and the call paths with them (said once).
            if (error == ENOMEM && s.stackBytes && s.dataBytes / 2 < 16 * recordBytes()) {
                say({ "PPE_CALLS: the locked-memory limit leaves no room for the stack copies; no call paths" });
                s.stackBytes = 0;
                s.dataPages = pagesFor(s.intervalNs, s.pageBytes);
                s.dataBytes = s.dataPages * s.pageBytes;
                continue;
            }
            if (error != ENOMEM || s.dataPages == 1) {
                *why = error == ENOMEM ? "cannot map the perf ring buffers (locked memory limit?)" : refusal(error);
                return false;
            }
            s.dataPages /= 2;
            s.dataBytes = s.dataPages * s.pageBytes;
        }
    }

    // The longest drain period: a quarter of a ring's fill time at the asked rate, and often enough
    // that the live file (a SIGKILL's profile) is never far behind.
    uint64_t longestPeriodNs()
    {
        const uint64_t quarter = ringFillNs() / 4;
        return quarter < kMinPeriodNs ? kMinPeriodNs : quarter > kMaxPeriodNs ? kMaxPeriodNs : quarter;
    }

    // In a forked child, on its collector thread, once it has used kChildDeferNs of CPU time (by the
    // process clock, which starts at 0 in a child) or lived kChildLongestNs: its own profile (adopt),
    // and its rings drained from now on. CPU time, not wall time: a loaded machine must not make a
    // short child pay for a profile of its own. The rings were opened at the fork (on the thread that
    // forked: events opened on the collector thread would follow only that one), so they hold every
    // sample since; the copies its owner held are dropped.
    void takeOver(uint64_t nowNs)
    {
        State& s = g_rings;
        timespec cpu {};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
        const uint64_t cpuNs = uint64_t(cpu.tv_sec) * 1'000'000'000 + uint64_t(cpu.tv_nsec);
        if (cpuNs < kChildDeferNs && nowNs - s.bornNs < kChildLongestNs)
            return;
        s.pendingChild = false;
        holdDrain(); // the copy it drops may be under a drain of a program thread's (dlclose)
        if (s.adopt)
            s.adopt();
        s.draining.store(false, std::memory_order_release);
        dropHeldSamples(s.pid);
    }

    // On the collector thread. A ring found half full (or samples lost) halves the period; one
    // found nearly empty doubles it back, up to longestPeriodNs: more threads than CPUs or a
    // scheduler that runs the program on fewer CPUs change nothing, one CPU's samples fill one ring.
    void drainJob(uint64_t nowNs)
    {
        State& s = g_rings;
        changeRingPeriods(nowNs); // first: a thread being created may be waiting for it
        if (s.pendingChild) {
            takeOver(nowNs);
            return;
        }
        const DrainCounts c = drainAll();
        if (s.fixedPeriodNs)
            return;
        uint64_t period = s.periodNs;
        if (c.lost || c.ringLost || c.fullest * 2 > s.dataBytes)
            period = period / 2 < kMinPeriodNs ? kMinPeriodNs : period / 2;
        else if (c.fullest * 8 < s.dataBytes)
            period = period * 2 > longestPeriodNs() ? longestPeriodNs() : period * 2;
        s.periodNs = period;
        // +-25 %: the period changes (ditherPeriods) must not come at one phase of a program loop
        // whose period divides the drain's (a loop of 0.5 ms and drains every 50 ms kept its bias).
        setServiceJobPeriod(s.job, period * 3 / 4 + nextRandom(s.random) % (period / 2 + 1));
    }

} // namespace

bool openRings(uint64_t intervalNs, RingSize size, RingHooks hooks, const char** why)
{
    State& s = g_rings;
    holdDrain(); // no drain of the collector thread while the rings change
    drainHeld(); // an earlier opening's last samples (ppe_set)
    releaseRings();
    if (!s.cpus) {
        const long cpus = sysconf(_SC_NPROCESSORS_CONF);
        s.cpus = cpus < 1 ? 1 : cpus > kMaxRings ? kMaxRings : int(cpus);
    }
    s.pageBytes = size_t(sysconf(_SC_PAGESIZE));
    s.intervalNs = intervalNs;
    s.hooks = hooks;
    s.pid = getpid();
    s.stackBytes = size.stackBytes & ~7u;
    if (s.stackBytes && !s.stack) { // kept for later openings: the drain may be using it
        void* stack = mmap(nullptr, s.stackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        s.stack = stack == MAP_FAILED ? nullptr : static_cast<uint8_t*>(stack);
    }
    s.dataPages = size.dataPages ? powerOfTwoAtLeast(size.dataPages) : pagesFor(intervalNs, s.pageBytes);
    s.dataBytes = s.dataPages * s.pageBytes;
    s.fixedPeriodNs = size.drainNs;
    s.taking.store(false, std::memory_order_relaxed);
    s.opener = pid_t(syscall(SYS_gettid));
    s.random = randomSeed(s.pid, s.opener);
    s.thinning = randomSeed(s.pid, s.opener + 1);
    if (!s.forkHooked) // a forked child inherits its parent's periods too: the asked ones
        s.forkHooked = pthread_atfork(beginThreadCreation, endThreadCreation, endThreadCreation) == 0;
    createForkTable(); // without it, forked children open their rings at once
    setServiceThreadHooks(handRingDescriptors, ringDescriptorsLeaving);
    const bool opened = openAll(true, why);
    s.draining.store(false, std::memory_order_release);
    return opened;
}

void enableRings(bool on)
{
    State& s = g_rings;
    s.wantOn.store(on, std::memory_order_release);
    const int count = s.count.load(std::memory_order_acquire);
    bool undisabled = false; // a ring without a descriptor: its samples are gated by `taking`
    for (int i = 0; i < count; ++i) {
        const int fd = s.rings[i].fd;
        if (fd >= 0 && controlPerfEvent(fd, on ? PERF_EVENT_IOC_ENABLE : PERF_EVENT_IOC_DISABLE, 0) != 0
            && errno == EBADF)
            closeDescriptor(i, true); // not ours any more: forgotten, never closed
        undisabled |= s.rings[i].fd < 0;
    }
    if (!undisabled) {
        s.taking.store(on, std::memory_order_release);
        return;
    }
    // What such a ring holds was taken before this change: counted as the sampler was until now.
    holdDrain();
    drainHeld();
    s.taking.store(on, std::memory_order_release);
    s.draining.store(false, std::memory_order_release);
}

void drainRings() { drainAll(); }

void drainRingsNow()
{
    if (g_rings.count.load(std::memory_order_acquire) == 0)
        return;
    holdDrain();
    drainHeld();
    g_rings.draining.store(false, std::memory_order_release);
}

uint64_t ringFillNs()
{
    const State& s = g_rings;
    return s.dataBytes / recordBytes() * s.intervalNs;
}

bool startRingDrain(const char** why)
{
    State& s = g_rings;
    s.periodNs = s.fixedPeriodNs ? s.fixedPeriodNs : longestPeriodNs();
    if (s.job < 0) // an earlier arming's job adapts its period to the new rings by itself
        s.job = addServiceJob(drainJob, s.periodNs);
    if (s.job < 0) {
        *why = "no room for the ring buffers' drain on the collector thread";
        return false;
    }
    return startServiceThread(why);
}

bool reopenRingsInChild(const char** why)
{
    State& s = g_rings;
    // Not inherited (the kernel maps perf buffers VM_DONTCOPY), and the child may have mapped
    // something else there since: forget them, never unmap. Their descriptors are closed where they
    // are still the parent's events (the program may have put its own files on those numbers).
    const int count = s.count.exchange(0, std::memory_order_acq_rel);
    for (int i = 0; i < count; ++i)
        closeDescriptor(i, false);
    forgetRingDescriptors(); // handed ones were the collector thread's table's, not in this one
    s.draining.store(false, std::memory_order_relaxed);
    s.taking.store(false, std::memory_order_relaxed);
    s.pid = getpid();
    s.opener = pid_t(syscall(SYS_gettid));
    s.random = randomSeed(s.pid, s.opener); // not the parent's rates
    s.thinning = randomSeed(s.pid, s.opener + 1);
    return openAll(false, why);
}

bool deferRingsInChild(void (*adopt)())
{
    State& s = g_rings;
    if (s.count.load(std::memory_order_acquire) == 0 && !s.pendingChild)
        return false; // the parent had no rings
    const pid_t owner = s.pendingChild ? s.owner : s.pid; // s.pid: still the parent's
    if (!registerForkedChild(getpid(), owner))
        return false;
    timespec now {};
    clock_gettime(CLOCK_MONOTONIC, &now);
    s.bornNs = uint64_t(now.tv_sec) * 1'000'000'000 + uint64_t(now.tv_nsec);
    // The restarted collector thread's first drain comes when the child may take over (before its
    // thread runs: the job's period is not being read).
    s.periodNs = kChildDeferNs;
    setServiceJobPeriod(s.job, kChildDeferNs);
    s.owner = owner;
    s.adopt = adopt;
    s.pendingChild = true;
    return true;
}

int ringDrainJob() { return g_rings.job; }

bool ringsOpen() { return g_rings.count.load(std::memory_order_acquire) > 0; }

void closeRings()
{
    holdDrain();
    drainHeld(); // their last samples
    releaseRings();
    g_rings.draining.store(false, std::memory_order_release);
}

} // namespace ppe
