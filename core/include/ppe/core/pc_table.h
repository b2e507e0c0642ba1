// Samples whose PC fell outside the monitored range, kept per address in a fixed, lock-free,
// open-addressed table; they are attributed to shared objects, the vDSO or anonymous code when
// the profile is written (a signal handler cannot ask the dynamic loader; a remote sampler reads
// the target's library list at the end).
#pragma once

#include <atomic>
#include <cstdint>

namespace ppe {

struct PcSlot {
    uint64_t pc; // 0: empty
    uint64_t count;
};

inline constexpr uint32_t kPcTableSlots = 1u << 15; // 512 KiB
inline constexpr uint32_t kPcTableProbes = 64;

// Counts `weight` samples at `pc` in a table of kPcTableSlots slots. Returns false when the table
// has no room for a new address (or pc is 0). Safe to call from a signal handler, concurrently from
// any number of threads.
inline bool addPc(PcSlot* slots, uint64_t pc, uint64_t weight)
{
    if (!pc)
        return false;
    const uint32_t home = uint32_t((pc * 0x9e3779b97f4a7c15ull) >> 49); // 15 bits
    for (uint32_t probe = 0; probe < kPcTableProbes; ++probe) {
        PcSlot& slot = slots[(home + probe) & (kPcTableSlots - 1)];
        std::atomic_ref<uint64_t> key(slot.pc);
        uint64_t seen = key.load(std::memory_order_acquire);
        if (!seen && key.compare_exchange_strong(seen, pc, std::memory_order_acq_rel))
            seen = pc;
        if (seen != pc)
            continue;
        std::atomic_ref<uint64_t>(slot.count).fetch_add(weight, std::memory_order_relaxed);
        return true;
    }
    return false;
}

} // namespace ppe
