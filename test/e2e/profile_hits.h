// Samples of a profile inside one function: the hits of every bin that meets its address range; and
// whether a profile's mechanism samples at the asked rate of CPU time.
#pragma once

#include "elf_symbols.h"
#include "ppe/profile/profile.h"

#include <cstdint>

namespace ppe::testing {

inline uint64_t hitsIn(const Profile& p, const FunctionSymbol& f)
{
    uint64_t hits = 0;
    for (const Bin& b : p.bins) {
        if (b.address + p.binWidth > f.address && b.address < f.address + f.size)
            hits += b.count;
    }
    return hits;
}

// perf-ring and perf-task-clock sample at the asked rate of (user) CPU time; itimer-prof, the
// fallback where perf events are refused, only on the scheduler tick.
inline bool takesAskedRate(const Profile& p) { return p.mechanism == "perf-ring" || p.mechanism == "perf-task-clock"; }

} // namespace ppe::testing
