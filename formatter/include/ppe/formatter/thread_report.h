// The per-thread rows and the blocked-time table of the report model (report.h), from the
// profile's `thread`, `blocked` and `blocking-scan` records.
#pragma once

#include "ppe/formatter/report.h"

#include <functional>
#include <string>

namespace ppe::formatter {

inline constexpr size_t kMaxThreadRows = 64;

// Fills report.threads: the kMaxThreadRows threads with the most samples and blocked time, in
// thread id order.
void addThreads(Report& report);

// Names a place of the code for the blocked-time table ("function (file:line)", "function
// (libc.so.6)"); "" when it cannot.
using PlaceNamer = std::function<std::string(const CodeLocation&)>;

// Fills report.blocked when the profile sampled blocked threads.
void addBlockedTime(Report& report, const PlaceNamer& name);

// The words above the blocked-time table on its two groups, the program's own waits and the
// helper threads' (issue 34), with `lineBreak` between their halves (the text report's lines are
// broken by hand).
std::string blockedGroupsLine(const BlockedTime& b, const std::string& lineBreak);

// The running time one sample stands for: the active CPU time over the samples where a CPU-time
// mechanism measured it (a tick-bound fallback takes fewer samples than asked), else the interval.
double secondsPerSample(const Profile& profile);

// The name of system call `number` on `arch` (uname -m), or "syscall N".
std::string syscallName(const std::string& arch, int64_t number);

} // namespace ppe::formatter
