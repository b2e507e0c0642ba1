#include "address_ranges.h"

#include <algorithm>
#include <climits>

namespace ppe::debuginfo {

void sortAndMerge(std::vector<AddressRange>& ranges)
{
    std::sort(
        ranges.begin(), ranges.end(), [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
    std::vector<AddressRange> merged;
    for (const AddressRange& r : ranges) {
        if (r.end <= r.start)
            continue;
        if (!merged.empty() && r.start <= merged.back().end)
            merged.back().end = std::max(merged.back().end, r.end);
        else
            merged.push_back(r);
    }
    ranges = std::move(merged);
}

bool IntervalSet::contains(uint64_t address) const
{
    auto it = std::upper_bound(
        ranges.begin(), ranges.end(), address, [](uint64_t a, const AddressRange& r) { return a < r.start; });
    return it != ranges.begin() && address < std::prev(it)->end;
}

uint64_t IntervalSet::nextStart(uint64_t address) const
{
    auto it = std::upper_bound(
        ranges.begin(), ranges.end(), address, [](uint64_t a, const AddressRange& r) { return a < r.start; });
    return it == ranges.end() ? UINT64_MAX : it->start;
}

} // namespace ppe::debuginfo
