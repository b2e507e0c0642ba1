// The sampling mechanisms a profile names in its `mechanism` field: one table for the collector
// that picks and names one, the writer and the live-file recovery that test it, and the profile
// reader that parses it (issue 38: the name was compared as a string in a dozen places).
// No allocation: part of libppe.
#pragma once

#include <cstdint>

namespace ppe {

// None: nothing could be armed (the collector's failure, never written). Unknown: a name this
// build does not know (a profile from a newer collector); the reader keeps its text as written.
enum class Mechanism : uint8_t { None, PerfTaskClock, ItimerProf, PosixTimer, PerfRing, GdbRemote, Unknown };

// The name a profile writes ("perf-ring", ...); "none" and "unknown" for the two that are not
// mechanisms. Signal-safe.
const char* mechanismName(Mechanism mechanism);

// The mechanism a profile's name stands for: Unknown for any other text, "" and "none" included.
// Signal-safe.
Mechanism parseMechanism(const char* name);

// The mechanism whose rate is timer expirations per wall second and whose active time is wall time
// (posix-timer); the others count samples of CPU time.
bool countsTimerTicks(Mechanism mechanism);

// The perf mechanisms: task-clock events that exclude the kernel, so they sample user time only.
bool samplesUserTimeOnly(Mechanism mechanism);

// The mechanisms of a process-directed signal, which a thread that blocks it passes to another:
// their missing samples show per thread, not in the process's count.
bool signalsProcessDirected(Mechanism mechanism);

// The samples taken, of a profile that counts `total` intervals and `ticks` timer ticks: the ticks
// of the mechanism whose samples stand for several intervals each (itimer-prof, sampled once a
// scheduler tick: each sample is its thread's CPU time since its last), and of which the
// statistical errors are; otherwise the count itself. (An itimer-prof profile before issue 35's
// weights has no ticks: its samples were one interval each.) Signal-safe.
uint64_t samplesTaken(Mechanism mechanism, uint64_t ticks, uint64_t total);

} // namespace ppe
