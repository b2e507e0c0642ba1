#include "blocked_scan.h"

#include "collector_state.h"
#include "initially.h"
#include "lifecycle.h"
#include "service_thread.h"
#include "task_list.h"
#include "threads.h"

#include <atomic>
#include <cstring>
#include <sys/uio.h>
#include <unistd.h>

namespace ppe {

namespace {

    // The scan period is at least 250 times its cost: <= 0.4 % of a CPU. Issue 35: at 1 % real-time
    // mode cost twice CPU mode's extra CPU; each look stands for the time since the last, so fewer
    // looks widen the blocked time's errors (seconds / sqrt(looks)) but do not bias it.
    constexpr uint64_t kCostShare = 250;
    constexpr int kMaxScannedThreads = 4096;
    constexpr size_t kStackWords = 512; // how far above the stack pointer a call into the image is sought
    // A longer gap between scans (the process stopped by a debugger) counts as this many periods;
    // large enough that a collector thread starved on a loaded machine keeps its estimate unbiased.
    constexpr uint64_t kMaxPeriodsCredited = 64;

    struct ScanState {
        Initially<int, -1> job;
        uint64_t intervalNs = 0;
        uint64_t lastNs = 0; // when the previous scan credited its time
        uint64_t meanCostNs = 0; // moving average of one scan's CPU time
        uint64_t periodNs = 0; // the period now
        Initially<uint64_t, 0x9e3779b97f4a7c15ull> random; // xorshift64, never 0
        uint64_t scans = 0;
        uint64_t costNs = 0;
        uint64_t periodSumNs = 0;
        RawBlocked places[kBlockedSlots] {};
        uint32_t used = 0;
        RawBlocked* overflow[2] {}; // one catch-all place per kind once the table is full
    };

    ScanState g_scan;

    uint64_t threadCpuNs() { return nowNs(CLOCK_THREAD_CPUTIME_ID); }

    uint64_t nextRandom()
    {
        uint64_t x = g_scan.random;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return g_scan.random = x;
    }

    // Copies `size` bytes at `address` of this process; false where nothing is mapped.
    bool readMemory(uint64_t address, void* out, size_t size)
    {
        iovec local { out, size };
        iovec remote { reinterpret_cast<void*>(address), size };
        return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(size);
    }

    // True when the instruction before `ra` is a call (so `ra` is a return address).
    bool followsCall(uint64_t ra)
    {
        uint8_t b[8];
        if (ra < sizeof(b) || !readMemory(ra - sizeof(b), b, sizeof(b)))
            return false;
#if defined(__x86_64__) || defined(__i386__)
        if (b[3] == 0xe8) // call rel32
            return true;
        for (int k = 2; k <= 7; ++k) { // call r/m: ff /2, with or without a REX prefix
            if (b[8 - k] == 0xff && ((b[9 - k] >> 3) & 7) == 2)
                return true;
        }
        return false;
#elif defined(__aarch64__)
        uint32_t insn;
        std::memcpy(&insn, b + 4, sizeof(insn));
        return (insn & 0xfc000000u) == 0x94000000u || (insn & 0xfffffc1fu) == 0xd63f0000u; // bl, blr
#else
        return true;
#endif
    }

    // The first return address into the monitored image above `sp`, 0 when none is found.
    uint64_t callerInImage(uint64_t sp, uint64_t site, uint64_t imageStart, uint64_t imageEnd)
    {
        uintptr_t words[kStackWords];
        iovec local { words, sizeof(words) };
        iovec remote { reinterpret_cast<void*>(sp), sizeof(words) };
        ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        for (size_t chunk = sizeof(words) / 2; got < 0 && chunk >= 64; chunk /= 2) {
            local.iov_len = remote.iov_len = chunk; // the stack may end within the first read
            got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        }
        for (ssize_t i = 0; i < got / ssize_t(sizeof(uintptr_t)); ++i) {
            const uint64_t word = words[i];
            if (word >= imageStart && word < imageEnd && word != site && followsCall(word))
                return word;
        }
        return 0;
    }

    struct Place {
        int64_t syscall;
        uint64_t sp, pc;
    };

    // Parses /proc/self/task/TID/syscall: "NR ARG1..ARG6 SP PC", "-1 SP PC" or "running".
    bool parsePlace(const char* text, Place* place)
    {
        uint64_t values[9];
        int count = 0;
        bool negative = *text == '-';
        if (negative)
            ++text;
        while (*text && count < 9) {
            const bool hex = text[0] == '0' && text[1] == 'x';
            text += hex ? 2 : 0;
            uint64_t v = 0;
            const char* start = text;
            for (;; ++text) {
                const char c = *text;
                const int digit = c >= '0' && c <= '9' ? c - '0' : hex && c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
                if (digit < 0)
                    break;
                v = v * (hex ? 16 : 10) + uint64_t(digit);
            }
            if (text == start)
                return false; // "running", or something unexpected
            values[count++] = v;
            while (*text == ' ' || *text == '\n')
                ++text;
        }
        if (count < 3)
            return false;
        place->syscall = negative ? -int64_t(values[0]) : int64_t(values[0]);
        place->sp = values[count - 2];
        place->pc = values[count - 1];
        return true;
    }

    RawBlocked* placeFor(int64_t syscall, uint64_t site, uint64_t caller, uint64_t tid)
    {
        const uint64_t key = uint64_t(syscall) * 0x9e3779b97f4a7c15ull ^ site * 31 ^ caller ^ tid * 0x100000001b3ull;
        for (size_t probe = 0, i = key % kBlockedSlots; probe < kBlockedSlots; ++probe, i = (i + 1) % kBlockedSlots) {
            RawBlocked& p = g_scan.places[i];
            if (p.observations && p.syscall == syscall && p.site == site && p.caller == caller && p.tid == tid)
                return &p;
            if (!p.observations && g_scan.used < kBlockedSlots - 2) {
                p.syscall = syscall, p.site = site, p.caller = caller, p.tid = tid;
                ++g_scan.used;
                return &p;
            }
        }
        // Full: the time still counts, with no place and no thread, under "not in a system call" or
        // "other calls" (the thread's own total keeps it: ThreadSlot::blockedNs).
        RawBlocked*& spill = g_scan.overflow[syscall < 0 ? 0 : 1];
        syscall = syscall < 0 ? -1 : kOtherCalls;
        if (!spill && g_scan.used < kBlockedSlots) {
            for (RawBlocked& p : g_scan.places) {
                if (!p.observations && (spill = &p))
                    break;
            }
            *spill = RawBlocked { syscall, 0, 0, 0, 0, 0 };
            ++g_scan.used;
        }
        return spill;
    }

    // Every thread seen: its name once, its CPU time each scan (the per-thread records). nullptr
    // when it has no slot or has ended.
    ThreadSlot* noteThread(pid_t tid)
    {
        ThreadSlot* slot = threadSlot(tid);
        if (!slot || !readThreadCpu(*slot))
            return nullptr;
        if (!slot->name[0])
            readThreadDetails(*slot);
        return slot;
    }

    // Where the thread was found last time, if it has not run since (its CPU time is the same): a
    // thread that has not run is still blocked at that place, with the same stack (issue 35: the
    // scan's cost follows the threads that ran, not every thread of the process).
    RawBlocked* unchangedPlace(const ThreadSlot* slot, pid_t tid)
    {
        if (!slot || !slot->scanPlace || slot->scanPlace > kBlockedSlots || slot->cpuNs != slot->scanCpuNs)
            return nullptr;
        RawBlocked& p = g_scan.places[slot->scanPlace - 1];
        return p.observations && p.tid == uint64_t(tid) ? &p : nullptr;
    }

    RawBlocked* readPlace(pid_t tid, const Histogram& image)
    {
        char text[256];
        Place place {};
        if (readTaskFile(tid, "syscall", text, sizeof(text)) <= 0 || !parsePlace(text, &place))
            return nullptr; // running (the sampler's), ended, or unreadable
        const uint64_t caller = callerInImage(place.sp, place.pc, image.imageStart, image.imageEnd);
        return placeFor(place.syscall, place.pc, caller, uint64_t(tid));
    }

    void credit(pid_t tid, uint64_t elapsedNs, const Histogram& image)
    {
        ThreadSlot* slot = noteThread(tid);
        RawBlocked* p = unchangedPlace(slot, tid);
        if (!p) {
            p = readPlace(tid, image);
            if (slot) { // the CPU time read before the place: a run in between shows next time
                slot->scanPlace = p ? uint32_t(p - g_scan.places) + 1 : 0;
                slot->scanCpuNs = slot->cpuNs;
            }
            if (!p)
                return; // running (the sampler's), ended, or unreadable
        }
        std::atomic_ref<uint64_t>(p->ns).fetch_add(elapsedNs, std::memory_order_relaxed);
        std::atomic_ref<uint64_t>(p->observations).fetch_add(1, std::memory_order_relaxed);
        if (slot)
            std::atomic_ref<uint64_t>(slot->blockedNs).fetch_add(elapsedNs, std::memory_order_relaxed);
    }

    // The next period: at least the sample interval and kCostShare times the mean cost, +-25 %.
    void reschedule(uint64_t costNs)
    {
        // Half the weight on the last scan: the first scans of many new threads read every place and
        // cost more than the later ones, which find most threads where they were (unchangedPlace).
        g_scan.meanCostNs = g_scan.meanCostNs ? (g_scan.meanCostNs + costNs) / 2 : costNs;
        uint64_t period = kCostShare * g_scan.meanCostNs;
        // At most twice the last period: one costly scan (the first reads of many new threads) does
        // not leave the next a long way off, when the next finds them where they were, cheaply.
        period = period < 2 * g_scan.periodNs ? period : 2 * g_scan.periodNs;
        period = period > g_scan.intervalNs ? period : g_scan.intervalNs;
        period = period * 3 / 4 + nextRandom() % (period / 2 + 1);
        g_scan.periodNs = period;
        setServiceJobPeriod(g_scan.job, period);
    }

    void scan(uint64_t now)
    {
        const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        uint64_t elapsed = g_scan.lastNs && now > g_scan.lastNs ? now - g_scan.lastNs : 0;
        if (elapsed > kMaxPeriodsCredited * g_scan.periodNs)
            elapsed = kMaxPeriodsCredited * g_scan.periodNs;
        g_scan.lastNs = now;
        if (!live || g_ppe.phase.load(std::memory_order_acquire) != Phase::Running || !elapsed
            || !scanningBlockedThreads())
            return; // paused, or CPU time now (ppe_set): that time is nobody's
        const uint64_t cpuBefore = threadCpuNs();
        pid_t tids[kMaxScannedThreads];
        const int count = listThreads(tids, kMaxScannedThreads);
        const pid_t self = serviceThreadId();
        for (int i = 0; i < count; ++i) {
            if (tids[i] != self)
                credit(tids[i], elapsed, live->histogram);
        }
        const uint64_t cost = threadCpuNs() - cpuBefore;
        g_scan.costNs += cost;
        g_scan.periodSumNs += elapsed;
        ++g_scan.scans;
        reschedule(cost);
    }

} // namespace

bool startBlockedScan(uint64_t intervalNs, const char** why)
{
    g_scan.intervalNs = intervalNs;
    g_scan.periodNs = intervalNs;
    if (g_scan.job >= 0)
        return true;
    g_scan.lastNs = nowNs(CLOCK_MONOTONIC);
    g_scan.job = addServiceJob(scan, intervalNs);
    if (g_scan.job < 0) {
        *why = "no room for the blocked-thread scan";
        return false;
    }
    return startServiceThread(why);
}

bool blockedScanActive() { return g_scan.job >= 0; }

size_t snapshotBlocked(RawBlocked* out, size_t capacity)
{
    size_t count = 0;
    for (const RawBlocked& p : g_scan.places) {
        const uint64_t seen = std::atomic_ref<const uint64_t>(p.observations).load(std::memory_order_relaxed);
        if (seen && count < capacity) {
            out[count] = p;
            out[count].ns = std::atomic_ref<const uint64_t>(p.ns).load(std::memory_order_relaxed);
            out[count++].observations = seen;
        }
    }
    return count;
}

ScanSummary blockedScanSummary()
{
    const uint64_t scans = g_scan.scans;
    return ScanSummary { scans, scans ? g_scan.periodSumNs / scans : 0, g_scan.costNs };
}

void clearBlockedScan()
{
    for (RawBlocked& p : g_scan.places)
        p = RawBlocked {};
    g_scan.used = 0;
    g_scan.overflow[0] = g_scan.overflow[1] = nullptr;
    g_scan.scans = g_scan.costNs = g_scan.periodSumNs = g_scan.meanCostNs = 0;
    g_scan.lastNs = nowNs(CLOCK_MONOTONIC);
}

} // namespace ppe
