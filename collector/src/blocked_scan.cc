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

    // The scan period is at least 250 times its cost (<= 0.4 % of a CPU) and 20 sample intervals
    // (10 ms at 2 kHz). Issue 35: scanning every sample interval, real-time mode cost 2-3 times CPU
    // mode's extra CPU; each look stands for the time since the last, so fewer looks widen the
    // blocked time's errors (seconds / sqrt(looks)) but do not bias it.
    constexpr uint64_t kCostShare = 250;
    constexpr uint64_t kMinIntervals = 20;
    // A thread found where it was is looked at next after half the scans it has been there (a
    // wait's end is seen within half its length), and at least once in as many scans as make
    // kLooksPerScan such looks a scan (a process of up to 8 threads: every scan), at most
    // kMaxLookScans (0.64 s at 2 kHz). Issue 35: a look costs a few hundred ns a thread, the
    // cache cold; 1024 idle threads at every scan cost 2-4 ms a second.
    constexpr uint64_t kLookFraction = 2;
    constexpr uint64_t kLooksPerScan = 8;
    constexpr uint64_t kMaxLookScans = 64;
    // At most this many looks that are only due a scan (about 40 us, the cache cold): the others
    // wait for the next scan, which starts with them (threads started together come due together;
    // 1024 of them stretched the period to 80 ms). Beyond 24 x 64 = 1536 threads blocked, each is
    // looked at less often than every 64 scans.
    constexpr int kMaxDueLooks = 24;
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
        uint64_t creditNs = 0; // the time all scans so far stood for (a thread's look: since its last)
        uint64_t index = 0; // scans that credited time; a thread's looks are numbered by it
        pid_t tids[kMaxScannedThreads] {}; // as last listed
        ThreadSlot* slots[kMaxScannedThreads] {}; // theirs, found once (the table's hash costs)
        // Their next look's scan, and whether they were blocked at the last, side by side: a scan
        // that looks at none of 1024 threads reads 9 KB, not 1024 slots.
        uint64_t due[kMaxScannedThreads] {};
        bool blocked[kMaxScannedThreads] {};
        struct {
            pid_t tids[kMaxScannedThreads];
            ThreadSlot* slots[kMaxScannedThreads];
        } before {}; // the list before the last listing
        int listed = 0; // how many
        Initially<bool, true> relist; // list them at the next scan
        Initially<int, -1> listedCount; // the thread count then
        uint64_t listedClaims = 0; // threadClaims() then
        uint64_t onceNs = 0; // the CPU time of this scan's work done once per thread: listing, first looks
        int dueLooksLeft = 0; // this scan's
        int resume = 0; // where the next scan starts: the first look put off
        int putOff = 0; // the first look put off this scan, + 1 (0: none)
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

    // followsCall's answers so far, by address: the words above a blocked thread's stack pointer
    // that point into the image are mostly the same few (the pool's caller, the program's locks and
    // condition variables), and each check was a process_vm_readv (issue 35: most of the first look
    // at each of 1024 new idle threads). The image's code does not change while it is mapped.
    struct CallCheck {
        uint64_t address; // 0: none
        bool call;
    };
    constexpr size_t kCallChecks = 256;
    CallCheck g_callChecks[kCallChecks];

    bool followsCallRemembered(uint64_t ra)
    {
        CallCheck& c = g_callChecks[(ra * 0x9e3779b97f4a7c15ull) >> 56];
        if (c.address != ra)
            c = CallCheck { ra, followsCall(ra) };
        return c.call;
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
            if (word >= imageStart && word < imageEnd && word != site && followsCallRemembered(word))
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

    // Adds `ns` (standing for `looks` scans) to place `p`, and to the thread's own total.
    void add(RawBlocked* p, ThreadSlot* slot, uint64_t ns, uint64_t looks)
    {
        if (!p || !ns)
            return;
        std::atomic_ref<uint64_t>(p->ns).fetch_add(ns, std::memory_order_relaxed);
        std::atomic_ref<uint64_t>(p->observations).fetch_add(looks ? looks : 1, std::memory_order_relaxed);
        if (slot)
            std::atomic_ref<uint64_t>(slot->blockedNs).fetch_add(ns, std::memory_order_relaxed);
    }

    // Where the thread was found at its last look, nullptr when running, unreadable or forgotten.
    RawBlocked* lastPlace(const ThreadSlot& slot, pid_t tid)
    {
        if (!slot.scanPlace || slot.scanPlace > kBlockedSlots)
            return nullptr;
        RawBlocked& p = g_scan.places[slot.scanPlace - 1];
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

    // The place of a thread that ran since its last look: none while it is on a CPU (its clock moves
    // between two reads: no /proc read for a busy thread), else /proc/self/task/TID/syscall.
    RawBlocked* currentPlace(ThreadSlot& slot, pid_t tid, const Histogram& image)
    {
        const uint64_t before = slot.cpuNs;
        if (readThreadCpu(slot) && slot.cpuNs != before)
            return nullptr;
        return readPlace(tid, image);
    }

    // Remembers the look of a thread that has been where it is for `waited` scans, and when the
    // next is due: +-25 % so that threads that started together are not all looked at in one scan.
    void remember(ThreadSlot& slot, RawBlocked* place, uint64_t waited)
    {
        const uint64_t perScan = uint64_t(g_scan.listed) / kLooksPerScan;
        const uint64_t most = perScan < 1 ? 1 : perScan > kMaxLookScans ? kMaxLookScans : perScan;
        uint64_t every = waited / kLookFraction;
        every = every < 1 ? 1 : every > most ? most : every;
        slot.scanPlace = place ? uint32_t(place - g_scan.places) + 1 : 0;
        slot.scanCpuNs = slot.cpuNs;
        slot.scanCreditNs = g_scan.creditNs;
        slot.scanIndex = g_scan.index;
        slot.scanDue = g_scan.index + every * 3 / 4 + nextRandom() % (every / 2 + 1);
    }

    // A look at a thread that ran since the last one (or is new). The last scan period is the place's
    // where it is found now, as for a thread looked at every scan. Of the time before (when its
    // looks were further apart) it waited all but its CPU time (the sampler's): at the place it
    // left, when it waits there again or runs now; when it waits elsewhere it moved at an unknown
    // moment, and the time is split between the two places.
    void lookAfterRun(ThreadSlot& slot, pid_t tid, uint64_t elapsed, const Histogram& image)
    {
        const uint64_t since = slot.scanIndex ? g_scan.creditNs - slot.scanCreditNs : elapsed;
        const uint64_t ran = slot.scanIndex ? slot.cpuNs - slot.scanCpuNs : 0;
        RawBlocked* before = lastPlace(slot, tid);
        RawBlocked* now = currentPlace(slot, tid, image);
        add(now, &slot, elapsed, 1);
        const uint64_t earlier = since > elapsed + ran ? since - elapsed - ran : 0;
        const uint64_t scans = slot.scanIndex ? g_scan.index - slot.scanIndex - 1 : 0;
        if (!before || !now || before == now) {
            add(before ? before : now, &slot, earlier, scans);
        } else { // it moved at an unknown moment between the two looks
            add(before, &slot, earlier - earlier / 2, scans - scans / 2);
            add(now, &slot, earlier / 2, scans / 2);
        }
        slot.scanSince = g_scan.index;
        remember(slot, now, 0);
    }

    // A thread that ended after its last look: it waited where it was then up to the scan before
    // this one (it ended since), less the little it ran before its end.
    void ended(ThreadSlot& slot, pid_t tid, uint64_t elapsed)
    {
        if (!slot.scanIndex || slot.scanIndex >= g_scan.index)
            return;
        const uint64_t until = g_scan.creditNs - elapsed;
        if (until > slot.scanCreditNs)
            add(lastPlace(slot, tid), &slot, until - slot.scanCreditNs, g_scan.index - 1 - slot.scanIndex);
        slot.scanPlace = 0;
        slot.scanIndex = g_scan.index;
        slot.scanCreditNs = g_scan.creditNs;
    }

    // One thread, when its look is due: one that has not run since its last look (its CPU time is
    // the same) is still blocked where it was, all the time since: credited exactly, each scan
    // between counted as an observation (issue 35: the scan's cost follows the threads that ran,
    // not every thread).
    void visit(pid_t tid, ThreadSlot* slot, uint64_t elapsed, const Histogram& image)
    {
        if (!slot) { // no memory for it: looked at every scan
            add(readPlace(tid, image), nullptr, elapsed, 1);
            return;
        }
        if (!readThreadCpu(*slot)) {
            ended(*slot, tid, elapsed);
            g_scan.relist = true; // the next scan lists the threads again
            return;
        }
        if (!slot->name[0])
            readThreadDetails(*slot);
        RawBlocked* before = lastPlace(*slot, tid);
        if (!slot->scanIndex) { // a new thread: its first look, once, is no measure of the scan's cost
            const uint64_t start = threadCpuNs();
            lookAfterRun(*slot, tid, elapsed, image);
            g_scan.onceNs += threadCpuNs() - start;
            return;
        }
        if (!before || slot->cpuNs != slot->scanCpuNs) {
            lookAfterRun(*slot, tid, elapsed, image);
            return;
        }
        add(before, slot, g_scan.creditNs - slot->scanCreditNs, g_scan.index - slot->scanIndex);
        remember(*slot, before, g_scan.index - slot->scanSince);
    }

    // The threads as last listed, listed again only when the process's thread count changed, a
    // thread the table did not know took a sample (threadClaims), or a listed one ended.
    void refreshList(uint64_t elapsed)
    {
        const int count = threadCount();
        if (!g_scan.relist && count >= 0 && count == g_scan.listedCount && threadClaims() == g_scan.listedClaims)
            return;
        g_scan.relist = false;
        const uint64_t start = threadCpuNs();
        const int before = g_scan.listed > 0 ? g_scan.listed : 0;
        for (int i = 0; i < before; ++i) { // the threads listed last time, to see which have ended
            g_scan.before.tids[i] = g_scan.tids[i];
            g_scan.before.slots[i] = g_scan.slots[i];
        }
        g_scan.listed = listThreadsHeld(g_scan.tids, kMaxScannedThreads);
        if (g_scan.listed < 0) // unreadable now: again next time
            g_scan.listed = 0, g_scan.relist = true;
        g_scan.listedCount = count;
        const pid_t self = serviceThreadId(); // never one of the program's threads in the profile
        for (int i = 0; i < g_scan.listed; ++i) {
            // Claimed now: the claims below are the others'.
            g_scan.slots[i] = g_scan.tids[i] != self ? threadSlot(g_scan.tids[i]) : nullptr;
            g_scan.due[i] = g_scan.slots[i] ? g_scan.slots[i]->scanDue : 0;
            g_scan.blocked[i] = false; // looked at when due, whatever the budget
            if (g_scan.slots[i])
                g_scan.slots[i]->scanListed = g_scan.index;
        }
        for (int i = 0; i < before; ++i) {
            ThreadSlot* slot = g_scan.before.slots[i];
            if (slot && slot->scanListed != g_scan.index)
                ended(*slot, g_scan.before.tids[i], elapsed);
        }
        g_scan.listedClaims = threadClaims();
        g_scan.onceNs += threadCpuNs() - start;
    }

    // The next period: at least kMinIntervals sample intervals and kCostShare times the mean
    // cost, +-25 %.
    void reschedule(uint64_t costNs)
    {
        // Half the weight on the last scan: the first scans of many new threads read every place and
        // cost more than the later ones, which find most threads where they were.
        g_scan.meanCostNs = g_scan.meanCostNs ? (g_scan.meanCostNs + costNs) / 2 : costNs;
        uint64_t period = kCostShare * g_scan.meanCostNs;
        // At most twice the last period: one costly scan (the first reads of many new threads) does
        // not leave the next a long way off, when the next finds them where they were, cheaply.
        period = period < 2 * g_scan.periodNs ? period : 2 * g_scan.periodNs;
        const uint64_t least = kMinIntervals * g_scan.intervalNs;
        period = period > least ? period : least;
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
        g_scan.creditNs += elapsed;
        ++g_scan.index;
        g_scan.onceNs = 0;
        refreshList(elapsed);
        const pid_t self = serviceThreadId();
        const int count = g_scan.listed, start = g_scan.resume < count ? g_scan.resume : 0;
        g_scan.dueLooksLeft = kMaxDueLooks;
        g_scan.putOff = 0;
        for (int k = 0; k < count; ++k) {
            const int i = (start + k) % count;
            if (g_scan.due[i] > g_scan.index || g_scan.tids[i] == self)
                continue;
            if (g_scan.blocked[i] && g_scan.dueLooksLeft-- <= 0) { // only due: put off to the next scan
                g_scan.putOff = g_scan.putOff ? g_scan.putOff : i + 1;
                continue;
            }
            ThreadSlot* slot = g_scan.slots[i];
            visit(g_scan.tids[i], slot, elapsed, live->histogram);
            g_scan.due[i] = slot ? slot->scanDue : 0;
            g_scan.blocked[i] = slot && slot->scanPlace;
        }
        g_scan.resume = g_scan.putOff ? g_scan.putOff - 1 : 0;
        const uint64_t cost = threadCpuNs() - cpuBefore;
        g_scan.costNs += cost;
        g_scan.periodSumNs += elapsed;
        ++g_scan.scans;
        // Issue 35: listing 128 new threads and their first looks made the next periods 80-250 ms.
        reschedule(cost > g_scan.onceNs ? cost - g_scan.onceNs : 0);
    }

    // Every listed thread not looked at in the last scan is settled now (before a profile is
    // written), up to the last scan: the time since its last look is the place's it was found at,
    // less what it ran since (no /proc read: a place found now would have no time).
    void settle()
    {
        for (int i = 0; i < g_scan.listed; ++i) {
            ThreadSlot* slot = g_scan.slots[i];
            if (!slot || !slot->scanIndex || slot->scanIndex >= g_scan.index)
                continue;
            if (!readThreadCpu(*slot)) {
                ended(*slot, g_scan.tids[i], 0);
                continue;
            }
            const uint64_t since = g_scan.creditNs - slot->scanCreditNs, ran = slot->cpuNs - slot->scanCpuNs;
            RawBlocked* place = lastPlace(*slot, g_scan.tids[i]);
            add(place, slot, since > ran ? since - ran : 0, g_scan.index - slot->scanIndex);
            remember(*slot, place, g_scan.index - slot->scanSince);
        }
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
    settle();
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
    g_scan.listed = 0;
    g_scan.relist = true; // the child's threads (its scan numbers go on: the slots may remember the parent's)
    g_scan.lastNs = nowNs(CLOCK_MONOTONIC);
}

} // namespace ppe
