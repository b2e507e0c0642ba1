#include "threads.h"

#include "collector_state.h"
#include "initially.h"
#include "task_list.h"

#include <atomic>
#include <ctime>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr uint32_t kMaxProbes = 64;

    ThreadSlot g_slots[kThreadSlots];
    uint64_t g_unplaced; // samples of threads the table had no room for
    uint64_t g_claims; // slots claimed (threadClaims)

    // enrolNewThreads's last listing: the thread count and claims then.
    struct Enrolled {
        Initially<int, -1> count;
        uint64_t claims = 0;
    };
    Enrolled g_enrolled;

    // The current sampling period of creditThreadCpu (1 to 255, never 0: a cleared slot's is 0).
    uint64_t g_creditPeriod;
    constexpr unsigned kCreditShift = 56;
    constexpr uint64_t kCreditNs = (uint64_t(1) << kCreditShift) - 1;

    uint32_t hashOf(uint32_t tid) { return (tid * 2654435761u) % kThreadSlots; }

    // The CPU clock of thread `tid` of this process (glibc's pthread_getcpuclockid for a kernel id).
    clockid_t threadClock(pid_t tid) { return clockid_t((~unsigned(tid) << 3) | 6); }

} // namespace

ThreadSlot* threadSlot(pid_t tid)
{
    const uint32_t id = uint32_t(tid);
    if (!id)
        return nullptr;
    // A short probe: a program that made thousands of threads costs the handler no more than this.
    for (uint32_t probe = 0, i = hashOf(id); probe < kMaxProbes; ++probe, i = (i + 1) % kThreadSlots) {
        std::atomic_ref<uint32_t> owner(g_slots[i].tid);
        uint32_t seen = owner.load(std::memory_order_acquire);
        if (seen == 0 && owner.compare_exchange_strong(seen, id, std::memory_order_acq_rel)) {
            std::atomic_ref<uint64_t>(g_claims).fetch_add(1, std::memory_order_relaxed);
            return &g_slots[i];
        }
        if (seen == id)
            return &g_slots[i];
    }
    return nullptr;
}

void countThreadSample(uint64_t weight) { countSampleOf(pid_t(syscall(SYS_gettid)), weight); }

void countSampleOf(pid_t tid, uint64_t weight)
{
    if (tid < 0)
        return; // a forked child's, counted in this profile by a parent (ring_sampler.h)
    if (ThreadSlot* slot = threadSlot(tid))
        std::atomic_ref<uint64_t>(slot->samples).fetch_add(weight, std::memory_order_relaxed);
    else
        std::atomic_ref<uint64_t>(g_unplaced).fetch_add(weight, std::memory_order_relaxed);
}

bool readThreadCpu(ThreadSlot& slot)
{
    const pid_t tid = pid_t(std::atomic_ref<uint32_t>(slot.tid).load(std::memory_order_acquire));
    timespec cpu {};
    if (clock_gettime(threadClock(tid), &cpu) != 0)
        return false; // ended: keep what was read before
    std::atomic_ref<uint64_t>(slot.cpuNs)
        .store(uint64_t(cpu.tv_sec) * 1'000'000'000 + uint64_t(cpu.tv_nsec), std::memory_order_relaxed);
    return true;
}

void readThreadDetails(ThreadSlot& slot)
{
    if (!readThreadCpu(slot))
        return;
    // A thread that has not run since its name was read has not renamed itself (issue 35: reading
    // every idle thread's name every 0.5 s cost CPU mode 1.07 -> 1.21 x at 4096 threads). Another
    // thread's rename of it shows once it runs.
    if (slot.name[0] && slot.cpuNs == slot.nameCpuNs)
        return;
    slot.nameCpuNs = slot.cpuNs;
    const pid_t tid = pid_t(std::atomic_ref<uint32_t>(slot.tid).load(std::memory_order_acquire));
    char name[sizeof(slot.name) + 1];
    const long got = readTaskFile(tid, "comm", name, sizeof(name));
    if (got <= 0)
        return;
    size_t length = size_t(got);
    while (length && (name[length - 1] == '\n' || name[length - 1] == '\0'))
        --length;
    for (size_t i = 0; i < sizeof(slot.name); ++i)
        slot.name[i] = i < length ? name[i] : '\0';
}

void openCpuCredit(pid_t skip)
{
    std::atomic_ref<uint64_t> period(g_creditPeriod);
    const uint64_t now = period.load(std::memory_order_relaxed) % 255 + 1;
    period.store(now, std::memory_order_release);
    pid_t tids[kEnrolledThreads];
    const int count = listThreadsHeld(tids, kEnrolledThreads);
    for (int i = 0; i < count; ++i) {
        ThreadSlot* slot = tids[i] != skip ? threadSlot(tids[i]) : nullptr;
        timespec cpu {};
        if (!slot || clock_gettime(threadClock(tids[i]), &cpu) != 0)
            continue;
        // Unless the thread's own first sample of the period came first.
        std::atomic_ref<uint64_t> credit(slot->credit);
        uint64_t seen = credit.load(std::memory_order_acquire);
        const uint64_t ns = (uint64_t(cpu.tv_sec) * 1'000'000'000 + uint64_t(cpu.tv_nsec)) & kCreditNs;
        if (seen >> kCreditShift != now)
            credit.compare_exchange_strong(seen, now << kCreditShift | ns, std::memory_order_acq_rel);
    }
}

uint64_t creditThreadCpu(pid_t tid, uint64_t intervalNs)
{
    ThreadSlot* slot = threadSlot(tid);
    timespec cpu {};
    if (!slot || !intervalNs || clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) != 0)
        return 1; // no table room: a plain sample
    const uint64_t cpuNs = uint64_t(cpu.tv_sec) * 1'000'000'000 + uint64_t(cpu.tv_nsec);
    std::atomic_ref<uint64_t>(slot->cpuNs).store(cpuNs, std::memory_order_relaxed); // fresh for its record
    const uint64_t now = cpuNs & kCreditNs;
    const uint64_t period = std::atomic_ref<uint64_t>(g_creditPeriod).load(std::memory_order_acquire);
    std::atomic_ref<uint64_t> credit(slot->credit);
    uint64_t seen = credit.load(std::memory_order_acquire);
    // Another period's credit, or more than the thread has run (a thread whose id the kernel
    // reused): a thread that started in this period.
    uint64_t credited = seen & kCreditNs;
    if (seen >> kCreditShift != period || credited > now)
        credited = 0;
    const uint64_t intervals = (now - credited) / intervalNs;
    credit.compare_exchange_strong(
        seen, period << kCreditShift | (credited + intervals * intervalNs), std::memory_order_acq_rel);
    return intervals;
}

void enrolLiveThreads(pid_t skip)
{
    pid_t tids[kEnrolledThreads];
    const int count = listThreadsHeld(tids, kEnrolledThreads);
    for (int i = 0; i < count; ++i)
        if (ThreadSlot* slot = tids[i] != skip ? threadSlot(tids[i]) : nullptr)
            readThreadDetails(*slot);
}

namespace {

    // True when the thread took a sample since slotSampled last said so: it ran. Under perf-ring only:
    // there every thread that runs is sampled, while the signal mechanisms miss a thread that blocks
    // their signal, whose CPU time is the very thing the missing-samples rule needs (always true).
    bool slotSampled(ThreadSlot& slot)
    {
        if (g_ppe.mechanism != Mechanism::PerfRing)
            return true;
        const uint64_t samples = std::atomic_ref<uint64_t>(slot.samples).load(std::memory_order_relaxed);
        const bool sampled = samples != slot.enrolSamples;
        slot.enrolSamples = samples;
        return sampled;
    }

} // namespace

void enrolNewThreads(pid_t skip)
{
    const int count = threadCount();
    if (count < 0 || count != g_enrolled.count || threadClaims() != g_enrolled.claims) {
        enrolLiveThreads(skip);
        g_enrolled.count = count;
        g_enrolled.claims = threadClaims();
        return;
    }
    // The same threads as at the last listing: only those that ran enough to be sampled have new
    // CPU time worth reading before they end (one that ran less keeps the CPU time read before).
    for (ThreadSlot& slot : g_slots) {
        if (std::atomic_ref<uint32_t>(slot.tid).load(std::memory_order_acquire) && slotSampled(slot))
            readThreadDetails(slot);
    }
}

uint64_t threadClaims() { return std::atomic_ref<uint64_t>(g_claims).load(std::memory_order_relaxed); }

size_t snapshotThreads(ThreadRecord* out, size_t capacity, uint64_t minCpuNs)
{
    // While the program runs (the live file's copy every 0.5 s, a checkpoint) only the threads
    // sampled since their CPU time was read are read again (issue 35: 1024 idle threads' clocks,
    // every 0.5 s); the others show it as of then, at most a sampling interval behind. The final
    // profile reads every thread's.
    const bool running = g_ppe.phase.load(std::memory_order_acquire) == Phase::Running;
    size_t count = 0;
    for (ThreadSlot& slot : g_slots) {
        const uint32_t tid = std::atomic_ref<uint32_t>(slot.tid).load(std::memory_order_acquire);
        if (!tid || count == capacity)
            continue;
        if (!running || !slot.name[0] || slotSampled(slot))
            readThreadDetails(slot);
        ThreadRecord& r = out[count];
        r.tid = tid;
        r.samples = std::atomic_ref<uint64_t>(slot.samples).load(std::memory_order_relaxed);
        r.cpuNs = std::atomic_ref<uint64_t>(slot.cpuNs).load(std::memory_order_relaxed);
        r.blockedNs = std::atomic_ref<uint64_t>(slot.blockedNs).load(std::memory_order_relaxed);
        for (size_t i = 0; i < sizeof(r.name); ++i)
            r.name[i] = slot.name[i];
        if (r.samples || r.blockedNs || r.cpuNs >= minCpuNs)
            ++count;
    }
    const uint64_t unplaced = std::atomic_ref<uint64_t>(g_unplaced).load(std::memory_order_relaxed);
    if (unplaced && count < capacity)
        out[count++] = ThreadRecord { 0, unplaced, 0, 0, {} };
    return count;
}

void clearThreads()
{
    for (ThreadSlot& slot : g_slots)
        slot = ThreadSlot {};
    g_unplaced = 0;
    g_enrolled = Enrolled {};
}

} // namespace ppe
