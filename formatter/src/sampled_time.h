// The time a sampling mechanism samples, and the rate it achieved over that time (issue 34): the
// perf mechanisms count user time only (their events exclude the kernel), so over a process's
// whole CPU time their rate looks low when the program spends much of it in the kernel, though
// nearly every sample its user time should give was taken.
#pragma once

#include "ppe/formatter/report.h"
#include "ppe/profile/profile.h"

namespace ppe::formatter {

// The perf mechanisms: task-clock events that exclude the kernel.
bool samplesUserTimeOnly(const Profile& p);

// The achieved rate over the time the mechanism samples (Totals::sampledRate).
double sampledRateOf(const Profile& p);

// Fills the totals' sampled time and rate, and the system time no sample covers.
void addSampledTime(const Profile& p, Totals& t);

// Whether the header says the rate over user time apart from the rate over all CPU time: when the
// system time no sample covers is worth a line of its own (5 ms, as the report's system-time line).
bool rateOverUserTimeApart(const Totals& t);

} // namespace ppe::formatter
