// Histogram geometry: PPE's rule of a bin width that starts at the instruction granularity and
// doubles until the counters fit the memory budget.
#pragma once

#include <cstdint>

namespace ppe {

// Bytes per histogram counter.
inline constexpr uint64_t kBinBytes = sizeof(uint32_t);
// PPE_MEM counts 512-byte pages (a VAX/VMS page).
inline constexpr uint64_t kPageBytes = 512;

struct BinLayout {
    uint64_t start = 0; // first monitored address (inclusive)
    uint64_t end = 0; // last monitored address (exclusive)
    uint32_t width = 0; // bytes per bin, a power of two
    uint32_t shift = 0; // log2(width)
    uint64_t count = 0; // number of bins covering [start, end)

    uint64_t binOf(uint64_t address) const { return (address - start) >> shift; }
    uint64_t addressOf(uint64_t bin) const { return start + (bin << shift); }
    uint64_t bytes() const { return count * kBinBytes; }
};

// The smallest instruction, in bytes, of the machine this code is compiled for.
uint32_t instructionGranularity();

// Computes the layout for [start, end) whose counters fit in budgetBytes, starting from
// `granularity` (a power of two). Returns false when the range is empty or invalid, or no width
// up to 2^31 fits. Safe to call from a signal handler.
bool computeBinLayout(uint64_t start, uint64_t end, uint32_t granularity, uint64_t budgetBytes, BinLayout* out);

} // namespace ppe
