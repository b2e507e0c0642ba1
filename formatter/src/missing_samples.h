// Samples missing against the CPU time, in words for the report header (Totals::missingSamples):
// the process's count against its CPU time at the asked rate, and each thread's against its own
// under the mechanisms of process-directed signals.
#pragma once

#include "ppe/formatter/report.h"
#include "ppe/profile/profile.h"

namespace ppe::formatter {

// Fills t.expectedSamples, t.sampledPercent and t.missingSamples.
void addMissingSamples(const Profile& p, Totals& t);

} // namespace ppe::formatter
