// The live profile: one mapping holding the record, the bins and the per-address table of PCs
// outside the range, laid out as core's live file (ppe/core/live_file.h). The signal handler
// reaches it through one atomic pointer and counts with core's histogram (ppe/core/histogram.h).
#pragma once

#include "ppe/core/histogram.h"
#include "ppe/core/live_file.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

// The head of the mapping: the file header a recovery reads back after the process died
// (offsets, not pointers), then the histogram's pointers, valid in the process that made it.
struct LiveProfile {
    LiveFileHeader file;
    Histogram histogram;
    size_t mappingSize;
    size_t countersOffset; // bins and table start here (page aligned): what a forked child clears
    CallTree calls; // PPE_CALLS' tree in the mapping (issue 39); empty without it
};

// Maps and lays out a live profile for `layout`, with a call tree of `callNodes` nodes (0: none):
// shared with the file `fd` (whose blocks it allocates) so that it outlives a killed process, or
// anonymous when fd < 0. Returns nullptr on
// failure, e.g. when the filesystem cannot hold the file. Signal-safe.
LiveProfile* createLiveProfile(const BinLayout& layout, uintptr_t bias, uintptr_t imageStart, uintptr_t imageEnd,
    int fd = -1, uint32_t callNodes = 0);

// A copy of `live` for a forked child, in the file `fd` (or anonymous), with the same record and
// layout and every counter zero (its call tree empty). Signal-safe.
LiveProfile* cloneEmpty(const LiveProfile& live, int fd);

// Notes the time of a sample in the live file ("data up to", in ns). Signal-safe, lock-free.
void markSampleTime(LiveProfile& live);

// Zeroes every counter and empties the call tree (after fork, in the child). Signal-safe.
void clearCounters(LiveProfile& live);

} // namespace ppe
