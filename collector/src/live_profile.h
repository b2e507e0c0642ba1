// The live profile: one anonymous mapping holding the record, the bins and the per-address table
// of PCs outside the range. The signal handler reaches it through one atomic pointer.
#pragma once

#include "pc_table.h"
#include "ppe/core/profile_record.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

struct LiveProfile {
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

// Maps and lays out a live profile for `layout`. Returns nullptr on failure. Not signal-safe.
LiveProfile* createLiveProfile(const BinLayout& layout, uintptr_t bias, uintptr_t imageStart, uintptr_t imageEnd);

// Counts a sample of `weight` intervals at `pc`. Signal-safe, lock-free, callable from any thread.
void recordSample(const LiveProfile& live, uintptr_t pc, uint64_t weight);

// Zeroes every counter (after fork, in the child). Signal-safe.
void clearCounters(LiveProfile& live);

} // namespace ppe
