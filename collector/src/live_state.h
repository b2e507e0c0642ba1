// What a recovery needs besides the counters, kept in the live file (ppe/core/live_file.h) by the
// collector thread: the executable mappings (to name the PCs outside the range as the profile
// writer does) and the times and CPU usage so far. Refreshed at start, periodically, at each
// checkpoint; never from a signal handler of a sampled thread. Each part is written into the copy
// that is not current and then published, so that a kill in the middle leaves the previous copy.
#pragma once

#include "live_profile.h"
#include "proc_maps.h"

#include <cstdint>

namespace ppe {

// Copies the executable mappings of /proc/self/maps (with the build id of each file) into the
// live file. `scratch`: memory for one reading of the maps. Allocates nothing; not re-entrant.
void refreshLiveMappings(LiveProfile& live, MapsScratch& scratch);

// The same into `to` (the profile writer's raw material, profile_output.h); false when
// /proc/self/maps cannot be read. Allocates nothing.
bool readLiveMappings(LiveMappings& to, MapsScratch& scratch);

// Records the program's threads (those with samples, blocked time or at least `minCpuNs` of CPU
// time; the first kLiveThreads) in the live file, for a recovery (issue 34). Allocates nothing;
// not re-entrant.
void refreshLiveThreads(LiveProfile& live, uint64_t minCpuNs);

// Records the wall and active time so far (`wallNs`, `activeNs`, sampling on: `running`), the
// samples counted and getrusage(RUSAGE_SELF) in the live file. Allocates nothing; not re-entrant.
void refreshLiveUsage(LiveProfile& live, uint64_t wallNs, uint64_t activeNs, bool running);

} // namespace ppe
