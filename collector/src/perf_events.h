// The perf events both perf mechanisms open (sampler.h: perf-task-clock, one per thread;
// ring_sampler.h: perf-ring, one per CPU): the same task clock, each with its own delivery.
//
// Their descriptors are the program's to see: the collector keeps them where the program does not
// look, and never touches a number it no longer owns. A descriptor goes at or above
// max(512, the soft RLIMIT_NOFILE when the collector started) and above every descriptor in use,
// with F_DUPFD_CLOEXEC (never dup2, which would close what is there). Where that is above the soft
// limit, the soft limit is raised for the moment of the dup and restored exactly (a descriptor above
// the soft limit stays valid). Each event's unique id (PERF_EVENT_IOC_ID) is recorded at open, and
// every ioctl and close first asks the number for its id: a program that closed or replaced the
// descriptor (dup2, close_range) keeps its own file untouched.
#pragma once

#include <cstdint>
#include <linux/perf_event.h>
#include <sys/types.h>

namespace ppe {

// What both count: the user-mode CPU time (task clock) of the calling process's threads, those
// created later included, one sample per `periodNs`; disabled until enabled.
perf_event_attr taskClockAttr(uint64_t periodNs);

// Prepares the placement of `count` descriptors (the rings of every CPU): false, with nothing
// changed, when the hard limit leaves no room for them above max(512, the soft limit). Until
// endPerfPlacement (soon: the soft limit is raised meanwhile), openPerfEvent places its descriptors
// there. Signal-safe, not re-entrant.
bool beginPerfPlacement(int count);
void endPerfPlacement();

// perf_event_open(attr, tid, cpu), close-on-exec, its descriptor placed as above (in the placement
// under way, or one of its own) and registered; -1 with errno on failure. Where the hard limit leaves
// no room above the soft limit (perf-task-clock's per-thread events need their descriptors: only a
// ring can live on its mapping), the highest free number below a soft limit of at least 1024 (a
// program must fill its table to see it); below a smaller one, a program that opens a few files
// would: -1 with errno EMFILE (perfNoRoom). Signal-safe.
int openPerfEvent(perf_event_attr& attr, pid_t tid, int cpu);

// perf_event_open(attr, tid, cpu) at whatever number the kernel gives (the lowest free one), not
// registered: for a caller that maps the event and closes the descriptor before the program runs
// again (perf-ring without room). -1 with errno on failure. Signal-safe.
int openTransientPerfEvent(perf_event_attr& attr, pid_t tid, int cpu);

// Why openPerfEvent failed with EMFILE: the program's descriptor limits leave it no number.
inline constexpr const char* perfNoRoom = "no descriptor for perf-task-clock's events that the program could not "
                                          "use (RLIMIT_NOFILE: the hard limit is the soft one, and that is small)";

// Registers a descriptor from openTransientPerfEvent as the collector's (ring_periods.h: one the
// collector thread's own table will keep); false when it is not a perf event or the table is full.
bool rememberPerfEvent(int fd);

// Forgets `fd` without closing it: the number is not the collector's in this descriptor table (a
// forked child's copy, or one only the collector thread's table holds). Signal-safe.
void forgetPerfEvent(int fd);

// True when `fd` is still the event the collector opened there (its id matches). Signal-safe.
bool ownsPerfEvent(int fd);

// ioctl(fd, request, arg) when `fd` is still the collector's event; otherwise nothing, -1 with
// errno EBADF (the program closed or replaced it). Signal-safe.
int controlPerfEvent(int fd, unsigned long request, unsigned long arg);

// Closes `fd` when it is still the collector's event, and forgets it either way; returns whether it
// was. Signal-safe.
bool closePerfEvent(int fd);

// Gives the calling thread's perf events a context of their own, after it created a thread that
// must not share them (the collector's). A thread created after the events are opened gets copies
// (inherit), and the kernel then treats the two threads' contexts as equivalent: on a context
// switch from one to the other on a CPU it swaps the contexts instead of switching the events out
// and in, so the events the collector opened (and whose period it changes, ring_sampler.cc) go on
// counting the new thread, and the copies count the creator. Adding and removing an event (a
// disabled dummy) marks the creator's context as changed since the copy, which ends the
// equivalence. Nothing where perf events are refused. Signal-safe.
void separatePerfContext();

} // namespace ppe
