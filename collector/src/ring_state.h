// The perf-ring mechanism's state, shared by ring_sampler.cc (opening, enabling, the drain's
// schedule) and ring_drain.cc (reading the records). Internal to the collector.
#pragma once

#include "ring_sampler.h"

#include <atomic>
#include <cstdint>
#include <linux/perf_event.h>
#include <sys/types.h>

#include "initially.h"

namespace ppe::rings {

constexpr int kMaxRings = 1024; // CPUs
constexpr uint64_t kMinDataPages = 8;
constexpr uint64_t kMaxDataPages = 128; // perf_event_mlock_kb (516 KiB) allows 128 + 1 pages per CPU
constexpr uint64_t kBufferedNs = 200'000'000; // a ring holds this much of one CPU's samples
constexpr uint64_t kMinPeriodNs = 1'000'000;
constexpr uint64_t kMaxPeriodNs = 50'000'000;
// A forked child reads its own rings once it has used this much CPU time, or lived this long
// (fork_table.h); its drain job looks every kChildDeferNs until then.
constexpr uint64_t kChildDeferNs = 20'000'000;
constexpr uint64_t kChildLongestNs = 1'000'000'000;

// PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_PERIOD
struct SampleRecord {
    perf_event_header header;
    uint64_t ip;
    uint32_t pid;
    uint32_t tid;
    uint64_t time; // CLOCK_MONOTONIC (use_clockid): the ring's own event's rate then (ring_periods.h)
    uint64_t streamId; // the event that took it: the ring's own or one a thread inherited
    uint64_t period; // an inherited event's (the ring's own one's is stale after a change)
};

struct LostRecord { // PERF_RECORD_LOST
    perf_event_header header;
    uint64_t id;
    uint64_t lost;
};

struct Ring {
    Initially<int, -1> fd; // -1: none (opened without room for one, or the program closed or replaced it)
    char* base = nullptr; // the metadata page, then dataBytes of ring
    // The id of the ring's own event, whose period varies: its samples are thinned by the noted
    // rate, the others by the period they carry (the asked one, but for a thread made while a
    // creation could not put it back: the collector's own, one whose creator gave up waiting).
    // By event, not by thread: the kernel swaps the events of two threads whose contexts are
    // alike (a thread and one it created, before separatePerfContext) on a context switch
    // between them, and an event may then sample any of them.
    uint64_t ownId = 0;
};

struct State {
    Ring rings[kMaxRings];
    std::atomic<int> count { 0 }; // rings published to the drain
    int cpus = 0; // CPUs configured, found at the first opening (sysconf allocates: not in a child)
    uint64_t intervalNs = 0;
    uint64_t random = 0; // xorshift state of the drain's jitter and the rates' starts
    uint64_t thinning = 0; // xorshift state of the thinning, used while `draining` is held
    pid_t opener = 0; // the thread that opened the events (pid 0): their threads are its own and later ones
    bool forkHooked = false; // beginThreadCreation runs before every fork
    uint64_t dataPages = 0; // per ring, a power of two
    uint64_t dataBytes = 0;
    size_t pageBytes = 0;
    RingHooks hooks {};
    pid_t pid = 0;
    std::atomic<bool> draining { false };
    Initially<int, -1> job; // the collector thread's drain
    uint64_t periodNs = 0; // its period now
    uint64_t fixedPeriodNs = 0; // PPE_RING_DRAIN_MS: never adapted
    // A ring without a descriptor cannot be disabled: it samples from its opening to its unmapping,
    // and its samples count only while `taking` (the sampler runs).
    std::atomic<bool> taking { false };
    bool toldOrphan = false; // "the program closed or replaced ..." said once
    std::atomic<bool> wantOn { false }; // the sampler runs (for rings opened later)
    // A forked child whose samples its owner's rings still hold (fork_table.h).
    bool pendingChild = false;
    pid_t owner = 0;
    uint64_t bornNs = 0;
    void (*adopt)() = nullptr;
    uint32_t stackBytes = 0; // issue 39: the user stack copied with each sample (0: no call paths)
    uint8_t* stack = nullptr; // the drain's copy of one sample's
};

extern State g_rings;

// A sample record's bytes, with the user state of its call path when that is asked for.
uint64_t recordBytes();

struct DrainCounts {
    uint64_t lost = 0; // samples of forked children that could not be held
    uint64_t ringLost = 0; // samples the kernel could not write, at the rates taken
    uint64_t taken = 0, thinned = 0; // samples read, and those thinned out of them
    uint64_t foreign = 0;
    uint64_t throttled = 0;
    uint64_t fullest = 0; // bytes found in the fullest ring
};

// Takes `draining` from a drain under way on the collector thread (a second's wait at most).
void holdDrain();

// Drains every ring while holding `draining`.
DrainCounts drainHeld();

// Drains every ring; what it dropped and the fullest ring's bytes (none: a drain was already under
// way on another thread).
DrainCounts drainAll();

} // namespace ppe::rings
