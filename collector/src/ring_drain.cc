#include "ring_state.h"

#include "fork_table.h"
#include "period_dither.h"
#include "ring_periods.h"
#include "ring_stacks.h"

#include <ctime>

namespace ppe::rings {

State g_rings;

// A sample record's bytes, with the user state of its call path when that is asked for.
uint64_t recordBytes() { return sizeof(SampleRecord) + (g_rings.stackBytes ? userStateBytes(g_rings.stackBytes) : 0); }

namespace {

    // A sample of another process: a forked child's, held for it while it has no rings of its own;
    // one whose own rings have it, dropped; any other, counted as foreign.
    void takeOther(const SampleRecord& r, DrainCounts& c)
    {
        switch (forkRoleOf(pid_t(r.pid), g_rings.pid)) {
        case ForkRole::Held:
            c.lost += holdSample(pid_t(r.pid), r.ip, pid_t(r.tid)) ? 0 : 1;
            break;
        case ForkRole::Elsewhere:
            break;
        case ForkRole::Unknown:
            ++c.foreign;
            break;
        }
    }

    // A sample of a child that ended before it read its rings: the parent's program, in no thread's
    // record (tid -1: the child's threads are not this process's).
    void takeFolded(uintptr_t pc, pid_t, uint64_t weight) { g_rings.hooks.sample(pc, -1, weight); }

    // `counted`: false for a ring without a descriptor while the sampler is off (its samples are dropped).
    // Whether sample `r` of a ring whose own event is `ownId` stays, thinned back to the asked rate.
    bool kept(const SampleRecord& r, uint64_t ownId)
    {
        State& s = g_rings;
        const uint32_t excess = r.streamId == ownId ? ringRateExcessAt(r.time) : excessOfPeriod(s.intervalNs, r.period);
        return keepVariedSample(excess, s.thinning);
    }

    // A sample of this process: its PC, and its call path when the record carries one.
    void takeOwn(const char* data, uint64_t mask, uint64_t at, const perf_event_header& h, const SampleRecord& r)
    {
        const State& s = g_rings;
        s.hooks.sample(uintptr_t(r.ip), pid_t(r.tid), 1);
        UserState user;
        if (s.stack && s.stackBytes && s.hooks.path
            && readUserState(data, mask, at, sizeof(SampleRecord), h.size, s.stack, s.stackBytes, &user))
            s.hooks.path(user, pid_t(r.tid));
    }

    void take(const char* data, uint64_t mask, uint64_t at, const perf_event_header& h, bool counted, uint64_t ownId,
        DrainCounts& c)
    {
        const State& s = g_rings;
        if (h.type == PERF_RECORD_SAMPLE && h.size >= sizeof(SampleRecord) && counted) {
            SampleRecord r;
            copyFromRing(data, mask, at, &r, sizeof(r));
            ++c.taken;
            if (!kept(r, ownId))
                ++c.thinned; // taken above the asked rate (ring_periods.h)
            else if (pid_t(r.pid) != s.pid)
                takeOther(r, c);
            else if (!s.hooks.quietThread || pid_t(r.tid) != s.hooks.quietThread())
                takeOwn(data, mask, at, h, r);
        } else if (h.type == PERF_RECORD_LOST && h.size >= sizeof(LostRecord)) {
            LostRecord r;
            copyFromRing(data, mask, at, &r, sizeof(r));
            c.ringLost += r.lost;
        } else if (h.type == PERF_RECORD_THROTTLE) {
            ++c.throttled;
        }
    }

    // Reads the records between the kernel's head and our tail, then hands the space back.
    void drainRing(const Ring& ring, DrainCounts& c)
    {
        const State& s = g_rings;
        auto* meta = reinterpret_cast<perf_event_mmap_page*>(ring.base);
        const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = meta->data_tail;
        c.fullest = head - tail > c.fullest ? head - tail : c.fullest;
        const char* data = ring.base + s.pageBytes;
        const uint64_t mask = s.dataBytes - 1;
        const bool counted = ring.fd >= 0 || s.taking.load(std::memory_order_acquire);
        while (head - tail >= sizeof(perf_event_header)) {
            perf_event_header h;
            copyFromRing(data, mask, tail, &h, sizeof(h));
            if (h.size < sizeof(h) || h.size > head - tail)
                break; // cannot be: the kernel writes whole records
            take(data, mask, tail, h, counted, ring.ownId, c);
            tail += h.size;
        }
        __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    }

} // namespace

// Takes `draining` from a drain under way on the collector thread. A drain takes microseconds,
// so a second's wait means a stopped thread: go on without it.
void holdDrain()
{
    for (int waits = 0; g_rings.draining.exchange(true, std::memory_order_acquire) && waits < 10'000; ++waits) {
        const timespec pause { 0, 100'000 };
        nanosleep(&pause, nullptr);
    }
}

// Drains every ring while holding `draining`.
DrainCounts drainHeld()
{
    State& s = g_rings;
    DrainCounts c;
    const int count = s.count.load(std::memory_order_acquire);
    for (int i = 0; i < count; ++i)
        drainRing(s.rings[i], c);
    if (count && s.hooks.sample)
        foldEndedChildren(s.pid, takeFolded);
    // Lost samples are thinned as the ones read were (the kernel says not whose they were).
    const uint64_t lost = c.lost + (c.taken ? c.ringLost * (c.taken - c.thinned) / c.taken : c.ringLost);
    if ((lost || c.foreign || c.throttled) && s.hooks.dropped)
        s.hooks.dropped(lost, c.foreign, c.throttled);
    return c;
}

// Drains every ring; returns what it dropped and the fullest ring's bytes (none: a drain was
// already under way on another thread).
DrainCounts drainAll()
{
    State& s = g_rings;
    if (s.draining.exchange(true, std::memory_order_acquire))
        return {};
    const DrainCounts c = drainHeld();
    s.draining.store(false, std::memory_order_release);
    return c;
}

} // namespace ppe::rings
