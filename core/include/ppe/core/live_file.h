// The live profile file (NAME.ppe.PID.live): the collector's histogram in a shared file mapping,
// so that a process killed with SIGKILL (or by the OOM killer) leaves its samples behind.
// Layout: a head structure beginning with LiveFileHeader at offset 0 (the collector keeps its own
// run-time pointers after it), the ProfileRecord at recordOffset, the bins (uint32_t) at
// binsOffset (page aligned: a forked child drops the counters' pages), the PC table (PcSlot) at
// pcsOffset, then two copies of the executable mappings (LiveMappings) at mapsOffset. planLiveFile() decides the
// offsets for the writer; readLiveFile() checks them for the reader: both sides use this one description.
#pragma once

#include "ppe/core/call_tree.h"
#include "ppe/core/pc_table.h"
#include "ppe/core/ppe_writer.h"
#include "ppe/core/profile_record.h"

#include <cstdint>

namespace ppe {

inline constexpr char kLiveMagic[8] = { 'P', 'P', 'E', 'L', 'I', 'V', 'E', '1' };

inline constexpr uint32_t kLiveMaxMappings = 1024;
inline constexpr uint32_t kLiveMapPaths = 64 * 1024;
inline constexpr uint32_t kLiveNone = 2; // LiveFileHeader::mapsCurrent/usageCurrent before the first copy
inline constexpr uint32_t kLiveThreads = 512; // threads per LiveThreads copy
inline constexpr uint32_t kLiveThreadsMark = 0x100; // in LiveFileHeader::threads: the file has LiveThreads
inline constexpr uint32_t kLiveCallsMark = 0x4c4c4143; // "CALL", LiveFileHeader::callsMark: the file has a call tree

// One executable mapping of the process, as the collector thread last read /proc/self/maps.
struct LiveMapping {
    uint64_t start; // run-time [start, end)
    uint64_t end;
    uint64_t offset; // file offset of `start`
    uint32_t path; // offset into LiveMappings::paths; 0 = "" (anonymous)
    uint32_t buildIdSize;
    uint8_t buildId[kMaxBuildId]; // of the file, read from its mapping at offset 0
};

// What recovery needs to name the PCs of the table: the executable mappings, ascending.
struct LiveMappings {
    int64_t takenNs; // CLOCK_REALTIME when read
    uint32_t count;
    uint32_t pathUsed;
    uint32_t truncated; // some mappings or paths did not fit
    uint32_t reserved;
    LiveMapping mappings[kLiveMaxMappings];
    char paths[kLiveMapPaths]; // '\0'-terminated paths, starting with ""
};

// The program's threads as the collector thread last listed them (every 0.5 s; issue 34): a merge
// with a killed rank keeps that rank's threads.
struct LiveThreads {
    int64_t takenNs; // CLOCK_REALTIME when taken
    uint32_t count;
    uint32_t reserved;
    ThreadRecord threads[kLiveThreads];
};

// Times and CPU usage as the collector thread last took them.
struct LiveUsage {
    int64_t takenNs; // CLOCK_REALTIME when taken
    uint64_t wallNs; // wall time since set-up, then
    uint64_t activeNs; // sampling time (CPU time in mode 1, wall time in mode 0), then
    uint64_t samples; // samples counted, then
    uint64_t cpuUserUs; // getrusage(RUSAGE_SELF), then
    uint64_t cpuSystemUs;
    uint32_t running; // sampling was on, then
    uint32_t reserved;
};

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

    // Appended (issue 18): what recovery needs besides the counters. Each copied part has two
    // slots; the collector writes the one not current, then publishes its index (a process killed
    // while writing leaves the previous copy whole).
    int64_t lastSampleNs; // CLOCK_REALTIME ns of the latest sample: "data up to"
    uint64_t startTicks; // the owner's start time: field 22 of /proc/PID/stat (clock ticks after boot)
    char bootId[40]; // /proc/sys/kernel/random/boot_id of the owner's boot
    uint64_t mapsOffset; // two LiveMappings
    uint32_t mapsSize; // sizeof(LiveMappings)
    uint32_t mapsCurrent; // 0 or 1: the copy last completed; kLiveNone: none yet
    LiveUsage usage[2];
    uint32_t usageCurrent; // 0 or 1; kLiveNone: none yet
    // Appended in the last reserved word (issue 34): kLiveThreadsMark | the LiveThreads copy last
    // completed (0 or 1; kLiveNone: none yet). 0 in older files, which have no thread copies. The
    // two copies follow the mappings' (liveThreads).
    uint32_t threads;
    // Appended (issue 39): kLiveCallsMark when the file holds the calling-context tree of PPE_CALLS
    // (core call_tree.h) of callNodes nodes at callsOffset; in older files these bytes are the
    // collector's pointers, never the mark.
    uint32_t callsMark;
    uint64_t callsOffset;
    uint32_t callNodes;
    uint32_t reserved;
};

// Where each part of a live file goes.
struct LiveFileLayout {
    uint64_t headSize; // the head structure (LiveFileHeader first)
    uint64_t recordOffset;
    uint64_t binsOffset; // page aligned: the counters start here
    uint64_t pcsOffset;
    uint64_t mapsOffset; // two LiveMappings
    uint64_t threadsOffset; // two LiveThreads
    uint64_t callsOffset; // the call tree (page aligned), when callNodes is not 0
    uint32_t callNodes;
    uint64_t fileSize; // a whole number of pages
};

// The layout for a head structure of `headSize` bytes and `binCount` bins, with a call tree of
// `callNodes` nodes (0: none), on pages of `pageSize` bytes. Signal-safe.
LiveFileLayout planLiveFile(uint64_t headSize, uint64_t binCount, uint64_t pageSize, uint32_t callNodes = 0);

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
    const LiveMappings* mappings = nullptr; // the last complete copy, nullptr if none
    const LiveUsage* usage = nullptr; // the last complete copy, nullptr if none
    const LiveThreads* threads = nullptr; // the last complete copy, nullptr if none (or an older file)
    CallTree calls; // the call tree as the file holds it; empty without one, or when it is damaged
};

// The two LiveMappings copies of a live file mapped at `base` laid out as `header` says. Signal-safe.
LiveMappings* liveMappings(char* base, const LiveFileHeader& header, uint32_t copy);

// The two LiveThreads copies of a live file mapped at `base` laid out as `header` says (after the
// mappings'); nullptr when the file has none. Signal-safe.
LiveThreads* liveThreads(char* base, const LiveFileHeader& header, uint32_t copy);

// Checks `size` bytes of a live file (aligned to 8 bytes at least) and points `view` into them.
// Signal-safe.
LiveFileProblem readLiveFile(const char* bytes, uint64_t size, LiveFileView* view);

} // namespace ppe
