// A made-up profile for report-model tests: in-range bins over 0x1000-0x2000.
#pragma once

#include "ppe/profile/profile.h"

#include <vector>

namespace ppe::testing {

inline Profile profileWith(std::vector<Bin> bins, uint32_t width = 1, uint32_t granularity = 1)
{
    Profile p;
    p.rangeStart = 0x1000;
    p.rangeEnd = 0x2000;
    p.binWidth = width;
    p.granularity = granularity;
    p.binCount = 0x1000 / width;
    for (const Bin& b : bins)
        p.counts[kInRange] += b.count;
    p.total = p.counts[kInRange];
    p.bins = std::move(bins);
    return p;
}

} // namespace ppe::testing
