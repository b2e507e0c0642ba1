// The perf-ring mechanism: sampling without signals. One PERF_COUNT_SW_TASK_CLOCK event per online
// CPU for this process (pid 0, cpu i, inherited by its threads), each writing a sample (PC, pid,
// tid) into a ring buffer the collector maps; the collector thread (service_thread.h) drains the
// rings every few milliseconds into the histogram. Nothing is ever sent to a program thread: a
// thread that blocks every signal is sampled like any other, no system call returns EINTR, and the
// program's signal dispositions are untouched. Allowed at perf_event_paranoid 2 (exclude_kernel);
// a per-task inherited event (cpu -1) would be simpler, but the kernel refuses to map its buffer.
//
// A forked child opens its own rings, read once it has used 20 ms of CPU (or lived 1 s), and
// inherits the events: its
// samples land in its parent's rings too, which hold them by pid until then (fork_table.h); one
// that ends before has them counted in its parent's profile. Samples of any other process are dropped and
// counted as foreign. Samples the kernel could not write because a ring was full come as PERF_RECORD_LOST and
// are counted as lost.
#pragma once

#include "ring_stacks.h"

#include <cstdint>
#include <sys/types.h>

namespace ppe {

struct RingHooks {
    // A sample of thread `tid` of this process at `pc` (-1: of a forked child that ended before it read
    // its own rings, counted here in no thread's record); on the draining thread, never in a signal
    // handler.
    void (*sample)(uintptr_t pc, pid_t tid, uint64_t weight);
    // Samples the drain dropped since the previous call: `lost` to full rings, `foreign` of other
    // processes; and the kernel's throttle records (a perf event stopped for the rest of a tick).
    // Called only when one of them is not 0.
    void (*dropped)(uint64_t lost, uint64_t foreign, uint64_t throttled);
    pid_t (*quietThread)(); // the collector's own thread, whose samples are dropped
    // Issue 39: the registers and stack of a sample of this process just given to `sample`, when
    // RingSize::stackBytes asked for them; on the draining thread. nullptr: not wanted.
    void (*path)(const UserState& user, pid_t tid) = nullptr;
};

// Tests that force an overflow set these (PPE_RING_PAGES, PPE_RING_DRAIN_MS); 0 otherwise.
struct RingSize {
    uint64_t dataPages; // per ring, rounded up to a power of two; 0: for 0.2 s of one CPU's samples
    uint64_t drainNs; // a fixed drain period; 0: adapted to what the drains find
    uint32_t stackBytes = 0; // the user stack copied with each sample for its call path; 0: none
};

// Opens and maps one ring per online CPU, disabled, for a sample every `intervalNs` of CPU time.
// Returns false and sets *why when the kernel refuses. Not signal-safe (only system calls, but it
// closes the rings of an earlier opening).
bool openRings(uint64_t intervalNs, RingSize size, RingHooks hooks, const char** why);

// Enables or disables the events. Signal-safe.
void enableRings(bool on);

// Drains every ring into the hooks. Takes no lock, allocates nothing; a drain already under way on
// another thread makes this one return at once. Signal-safe.
void drainRings();

// Drains every ring now, after a drain under way on the collector thread: dlclose calls it before
// it unmaps code whose samples may still wait in the rings (drained later, their addresses would
// belong to nothing, or to the next object mapped there). Waits; not for a signal handler.
void drainRingsNow();

// How long a ring takes to fill at the asked rate when one CPU runs the program all the time: the
// drain must come well before (the collector thread's job period adapts to what it finds).
uint64_t ringFillNs();

// Adds the drain to the collector thread's jobs (once; later calls set its period) and starts that
// thread. Not signal-safe.
bool startRingDrain(const char** why);

// In a forked child: forgets the parent's rings (their mappings are not inherited, their
// descriptors are closed where they are still the collector's) and opens the child's own, unless
// they wait (deferRingsInChild). Signal-safe.
bool reopenRingsInChild(const char** why);

// In a forked child's atfork handler, before reopenRingsInChild: the child's rings are read only once
// it has used 20 ms of CPU time or lived 1 s (its collector thread's drain job then calls `adopt`,
// and its owner drops the samples it held for it, fork_table.h). False when they cannot wait (no rings in the parent,
// no fork table): the child reads them at once. Signal-safe.
bool deferRingsInChild(void (*adopt)());

// Drains, closes and unmaps the rings (a drain under way on another thread finishes first).
// Signal-safe.
void closeRings();

// For ring_periods.cc: the drain job's id (-1: none yet), and whether rings are open.
int ringDrainJob();
bool ringsOpen();

} // namespace ppe
