// The live profile: one anonymous mapping holding the record, the bins and the per-address table
// of PCs outside the range. The signal handler reaches it through one atomic pointer.
#pragma once

#include "pc_table.h"
#include "ppe/core/live_file.h"
#include "ppe/core/profile_record.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

// The head of the mapping: the file header a recovery reads back after the process died
// (offsets, not pointers), then pointers valid in the process that made it.
struct LiveProfile {
    LiveFileHeader file;
    ProfileRecord* record;
    uint32_t* bins;
    PcSlot* pcs;
    uintptr_t runStart; // run-time address of the first bin
    uint64_t runLength; // bytes covered by the bins
    uint32_t shift; // log2(bin width)
    uintptr_t imageStart; // run-time extent of the monitored object's segments
    uintptr_t imageEnd;
    size_t mappingSize;
    size_t countersOffset; // bins and table start here (page aligned): what a forked child clears
};

// Maps and lays out a live profile for `layout`: shared with the file `fd` (whose blocks it
// allocates) so that it outlives a killed process, or anonymous when fd < 0. Returns nullptr on
// failure, e.g. when the filesystem cannot hold the file. Signal-safe.
LiveProfile* createLiveProfile(
    const BinLayout& layout, uintptr_t bias, uintptr_t imageStart, uintptr_t imageEnd, int fd = -1);

// A copy of `live` for a forked child, in the file `fd` (or anonymous), with the same record and
// layout and every counter zero. Signal-safe.
LiveProfile* cloneEmpty(const LiveProfile& live, int fd);

// Counts a sample of `weight` intervals at `pc`. Signal-safe, lock-free, callable from any thread.
void recordSample(const LiveProfile& live, uintptr_t pc, uint64_t weight);

// Zeroes every counter (after fork, in the child). Signal-safe.
void clearCounters(LiveProfile& live);

} // namespace ppe
