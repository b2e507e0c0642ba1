// The periods of perf-ring's events (issue 35, period_dither.h): varied every 50-100 ms on the
// collector thread, always to a rate above the asked one, and put back to the asked one around every
// thread or process creation (a new thread keeps its creator's period of that moment for its life).
// Each change is noted with its time, and the drain thins the samples of these events back to the
// asked rate by the rate in force when each was taken (ringRateExcessAt: the samples carry their
// time and their event's id); a sample of an event a thread inherited is thinned by the period it
// carries (excessOfPeriod: the kernel reports an inherited event's period right, a changed one's
// wrongly).
//
// A period changes only through a descriptor of the event (PERF_EVENT_IOC_PERIOD). Where the
// descriptor limits leave room, the rings' descriptors are placed high in the program's table
// (perf_events.h), and any thread may use them. Where they leave none (a soft limit equal to the
// hard one, as many batch systems and containers set it), the program's table must not hold them:
// they are opened there (at the asked period) for the moment of the collector thread's start,
// copied into its own table (service_thread.h), and closed in the program's (handRingDescriptors);
// the collector thread then varies the period. Only it can change a period then, so a creating
// thread asks it to put the asked period back and waits (at most 100 ms; about 0.2 ms at a load of
// 4 on two CPUs, docs/user-guide.md §4), once per change: later creations find it in place. Where
// neither is possible (a forked child, a collector thread already running when the rings open, or
// one refused a table of its own), the period stays the asked one.
#pragma once

#include <cstdint>
#include <sys/types.h>

namespace ppe {

// Where the descriptors of the rings being opened will live.
enum class RingDescriptors {
    None, // closed once mapped: the period never changes
    Placed, // high in the program's table: any thread changes the period
    Handed, // kept until the collector thread's start copies them (handRingDescriptors)
};

// On the thread opening the rings, before the first: the period they open at (varied unless
// `where` is None; a first stretch at the asked one would be in phase with a loop of that period).
// `where` becomes None when the periods may not change (before libppe.so's pthread_create is in
// place, period_dither.h). Further changes are kept off until ringsOpened.
uint64_t openingRingPeriod(pid_t opener, uint64_t intervalNs, uint64_t seed, RingDescriptors& where);

// Ring `i`'s descriptor, for the period changes (not for None).
void keepRingDescriptor(int i, int fd);

// After the last ring opened (`count` of them, 0 after a failure): changes may begin.
void ringsOpened(int count);

// The rings are released: their descriptors are forgotten here (ring_sampler.cc closes placed
// ones; handed ones live and end with the collector thread's table).
void forgetRingDescriptors();

// True when rings about to open may hand their descriptors to the collector thread: its start
// (or restart after parking) is still to come, and will copy them.
bool ringDescriptorsCanBeHanded();

// On the thread that started the collector thread, once it runs (`ownTable`: it has its own copy of
// the descriptor table): closes the program's copies of handed descriptors. Without an own table
// they are closed and forgotten, and the period stays the asked one.
void handRingDescriptors(bool ownTable);

// On the collector thread as it leaves the process (parked): its table goes, and the handed
// descriptors with it; the asked period is put back first, for good.
void ringDescriptorsLeaving();

// On the collector thread, from the drain job: puts the asked period back when a creator asks, and
// varies it every kDitherNs once the opening thread ran, while it runs.
void changeRingPeriods(uint64_t nowNs);

// The varied events' rate when their sample of `timeNs` (CLOCK_MONOTONIC) was taken: its excess over the
// asked one in 1024ths (period_dither.h), for keepVariedSample. Lock-free; on the draining thread.
uint32_t ringRateExcessAt(uint64_t timeNs);

// Around the creation of a thread (libppe.so's pthread_create) or of a process (fork, through
// pthread_atfork): between these two every period is the asked one. Not in a signal handler.
void beginThreadCreation();
void endThreadCreation();

} // namespace ppe
