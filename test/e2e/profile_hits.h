// Samples of a profile inside one function: the hits of every bin that meets its address range.
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

} // namespace ppe::testing
