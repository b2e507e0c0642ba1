// The live profile file (NAME.ppe.PID.live): the collector's histogram in a shared file mapping,
// so that a process killed with SIGKILL (or by the OOM killer) leaves its samples behind.
// Layout: a head structure beginning with LiveFileHeader at offset 0 (the collector keeps its own
// run-time pointers after it), the ProfileRecord at recordOffset, the bins (uint32_t) at
// binsOffset (page aligned: a forked child drops the counters' pages), the PC table (PcSlot) at
// pcsOffset. planLiveFile() decides the offsets for the writer; readLiveFile() checks them for the
// reader: both sides use this one description.
#pragma once

#include "ppe/core/pc_table.h"
#include "ppe/core/profile_record.h"

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

// Where each part of a live file goes.
struct LiveFileLayout {
    uint64_t headSize; // the head structure (LiveFileHeader first)
    uint64_t recordOffset;
    uint64_t binsOffset; // page aligned: the counters start here
    uint64_t pcsOffset;
    uint64_t fileSize; // a whole number of pages
};

// The layout for a head structure of `headSize` bytes and `binCount` bins, on pages of `pageSize`
// bytes. Signal-safe.
LiveFileLayout planLiveFile(uint64_t headSize, uint64_t binCount, uint64_t pageSize);

// Fills the header at the start of a mapping laid out as `layout`. Signal-safe.
void writeLiveHeader(LiveFileHeader& header, const LiveFileLayout& layout);

enum class LiveFileProblem {
    None,
    NotLive, // too short for a header, or no magic
    OtherVersion, // another sizeof(ProfileRecord)
    Truncated, // shorter (or longer) than the header says
    Inconsistent, // parts overlap or run past the end
    BinsOverflow, // the record's bins do not fit before the PC table
};

// The parts of a live file read back.
struct LiveFileView {
    LiveFileHeader header;
    const ProfileRecord* record = nullptr; // inside the bytes, aligned as the bytes are
    const uint32_t* bins = nullptr;
    const PcSlot* pcs = nullptr;
};

// Checks `size` bytes of a live file (aligned to 8 bytes at least) and points `view` into them.
// Signal-safe.
LiveFileProblem readLiveFile(const char* bytes, uint64_t size, LiveFileView* view);

} // namespace ppe
