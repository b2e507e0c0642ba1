// Sets of address ranges: sorting and merging, and lookups in the result.
#pragma once

#include "ppe/debuginfo/debug_info.h"

#include <vector>

namespace ppe::debuginfo {

// Sorts `ranges` by start, drops empty ones and merges those that overlap or touch.
void sortAndMerge(std::vector<AddressRange>& ranges);

// Sorted, merged intervals with a lookup.
struct IntervalSet {
    std::vector<AddressRange> ranges;
    void finish() { sortAndMerge(ranges); }
    bool contains(uint64_t address) const; // after finish()
    uint64_t nextStart(uint64_t address) const; // the first start above `address`, else UINT64_MAX
};

} // namespace ppe::debuginfo
