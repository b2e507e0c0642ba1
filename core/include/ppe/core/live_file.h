// The live profile file (NAME.ppe.PID.live): the collector's histogram in a shared file mapping,
// so that a process killed with SIGKILL (or by the OOM killer) leaves its samples behind.
// Layout: this header at offset 0, the ProfileRecord at recordOffset, the bins (uint32_t) at
// binsOffset, the table of PCs outside the range ({uint64_t pc, count}) at pcsOffset.
#pragma once

#include <cstdint>

namespace ppe {

inline constexpr char kLiveMagic[8] = { 'P', 'P', 'E', 'L', 'I', 'V', 'E', '1' };

struct LiveFileHeader {
    char magic[8]; // kLiveMagic
    uint32_t headerSize; // bytes of the whole head structure that begins with this header
    uint32_t recordSize; // sizeof(ProfileRecord) of the writer
    uint64_t recordOffset;
    uint64_t binsOffset;
    uint64_t pcsOffset;
    uint32_t pcSlots;
    uint32_t pcSlotSize;
    uint64_t fileSize;
    int64_t lastSampleTime; // CLOCK_REALTIME seconds of the latest sample: "data up to"
};

} // namespace ppe
