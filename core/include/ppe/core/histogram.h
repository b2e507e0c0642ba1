// One histogram for every sampler: the rules that turn a sampled program counter into a count.
// The in-process collector (from its signal handlers), the remote ARC sampler (from an ordinary
// loop reading PCs over a debugger link) and the recovery of a killed run's live file all count
// with these functions, so that a sample means the same thing whoever took it.
//
// A sample lands in exactly one category (profile_record.h): in a bin of the monitored range, below
// or above the range inside the monitored object, or outside it, kept per address in the PC table
// until the profile is written and the address can be named (shared object, vDSO, anonymous code,
// unknown), or lost when that table is full. Bins are 32-bit and saturate; totals are 64-bit.
// Plain data, no allocation, no locks: everything here is safe to call from a signal handler.
#pragma once

#include "ppe/core/pc_table.h"
#include "ppe/core/profile_record.h"

#include <cstdint>

namespace ppe {

// Where one profile's counters are, and the run-time geometry that places a PC among them. A
// view: it owns nothing.
struct Histogram {
    ProfileRecord* record = nullptr;
    uint32_t* bins = nullptr; // record->layout.count counters
    PcSlot* pcs = nullptr; // kPcTableSlots slots of PCs outside the monitored object
    uint64_t runStart = 0; // run-time address of the first bin
    uint64_t runLength = 0; // bytes the bins cover
    uint32_t shift = 0; // log2(bin width)
    uint64_t imageStart = 0; // run-time extent of the monitored object: below/above the range
    uint64_t imageEnd = 0;
};

// The histogram of `record` (its layout and load bias) over `bins` and `pcs`, for a monitored
// object loaded at run-time [imageStart, imageEnd). Signal-safe.
Histogram makeHistogram(ProfileRecord* record, uint32_t* bins, PcSlot* pcs, uint64_t imageStart, uint64_t imageEnd);

// Counts a sample of `weight` intervals at run-time address `pc`. Safe to call from a signal
// handler; lock-free, concurrently from any number of threads.
void recordSample(const Histogram& histogram, uint64_t pc, uint64_t weight);

// Adds `weight` to the 32-bit `bin`; what does not fit is counted in record.saturated (still in
// range, in no bin): bins never wrap. Signal-safe, lock-free.
void bumpBin(ProfileRecord& record, uint32_t& bin, uint64_t weight);

// Adds `weight` samples to the total of `category`. Signal-safe, lock-free.
void countSamples(ProfileRecord& record, unsigned category, uint64_t weight);

// The category of an outside PC from the mapping that holds it when the profile is written:
// `path` is the mapping's file ("" for anonymous memory, "[vdso]", "[heap]", ...) or nullptr when
// no mapping holds it; `imagePath` is the monitored object's file; `belowRange`: the PC is below
// the monitored range. Signal-safe.
unsigned categoryOfMapping(const char* path, const char* imagePath, bool belowRange);

// Zeroes every total, the saturation count and the timer ticks (not the bins). Signal-safe.
void clearCounts(ProfileRecord& record);

// For a histogram whose totals were live when its process died: makes counts[kInRange] agree with
// the bins (plus saturated), and counts what the PC table holds as unknown (the dead process's
// mappings cannot be read any more). Signal-safe.
void settleCounts(ProfileRecord& record, const uint32_t* bins, const PcSlot* pcs, uint32_t slots);

} // namespace ppe
