// The collector's life: the automatic start before main, sampling periods, the live profile, the
// end of the process (exit, fatal signals, _exit and exec) and fork. The control calls
// (control_api.cc) drive it through these.
#pragma once

#include "image.h"
#include "live_profile.h"

#include <cstdint>

namespace ppe {

// The automatic start: the whole code of the main executable, sampling at once. Not signal-safe.
void load();

// Says "ppe: disabled: WHY". Signal-safe.
void disabled(const char* why);

// In a forked child (the atfork handler): the child's own sampler, then its collector thread and
// checkpoints; saying why where they cannot start. Not signal-safe.
void restartSamplingInChild();

// True while the collector has a profile (started, not finished). Signal-safe.
bool active();

// Installs the sampler for g_ppe.config; on failure disables the collector. Not signal-safe.
bool arm();

// A new live profile of link-time [codeStart, codeEnd) in `image`, in `pages` 512-byte pages,
// described and with its live file. Says why and returns nullptr on failure. Not signal-safe.
LiveProfile* prepareLive(const ObjectImage& image, uint64_t codeStart, uint64_t codeEnd, uint64_t pages);

// Real-time mode with a CPU-time mechanism: blocked threads are sampled by the collector thread's
// scan (blocked_scan.h). True when that applies to the current settings. Signal-safe.
bool scanningBlockedThreads();

// Starts that scan (or updates its interval) when scanningBlockedThreads(); says why it cannot.
// Not signal-safe.
void scanBlockedThreadsInRealTime();

// Says the monitored range, the mechanism and the bin width. Signal-safe.
void announce(const LiveProfile& live);

// Starts or ends a sampling period (ppe_start/ppe_pause), accounting active time. Signal-safe.
void startPeriod();
void endPeriod();

// Stops sampling and writes the profile, on the caller's stack (about 15 KB): the endings of the
// process call endProcess (process_end.h) instead, which runs this off their stack. Safe to call
// from a signal handler; runs once.
void finish(const char* reason);

} // namespace ppe
