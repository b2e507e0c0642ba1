// The .ppe writer (format in docs/ppe-format.md). Safe to call from a signal handler; two
// profiles can be written at once (a checkpoint and the final profile) with a buffer each.
#pragma once

#include "ppe/core/call_tree.h"
#include "ppe/core/mechanism.h"
#include "ppe/core/pc_table.h"
#include "ppe/core/profile_record.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

// A shared object that took samples.
struct ObjectInfo {
    const char* path;
    uint64_t hits;
    const uint8_t* buildId;
    uint32_t buildIdSize;
};

// Samples at one place in a shared object (the .ppe's "object-hit" record): its file offset (the formatter maps it to
// an address through the object's program headers).
struct ObjectCountRecord {
    uint32_t object; // index into the ObjectInfo array
    uint64_t fileOffset;
    uint64_t count;
};

// A place in the program's code as the .ppe names it: in the monitored image (link-time address),
// in a shared object (an index into the ObjectInfo array and a file offset), or a run-time address
// no object held.
struct CodePlace {
    enum class Kind : uint32_t { None, Image, Object, Address };
    Kind kind = Kind::None;
    uint32_t object = 0;
    uint64_t address = 0;
};

// Where threads waited in the kernel (real-time mode): the system call, the user PC the kernel
// reports (`site`, usually in the C library) and the call into the monitored image found above it
// on the stack (`caller`), with the thread-nanoseconds this place stands for.
struct BlockedRecord {
    int64_t syscall = 0; // -1: blocked outside a system call (a page fault); -2: other calls (the table was full)
    uint64_t ns = 0;
    uint64_t observations = 0;
    CodePlace site;
    CodePlace caller;
    uint64_t tid = 0; // the thread that waited there; 0: unknown (or any, once the table was full)
};

// One thread of the process: its samples (running time) and, in real-time mode, its blocked time.
struct ThreadRecord {
    uint64_t tid = 0;
    uint64_t samples = 0;
    uint64_t cpuNs = 0; // its CPU time when last read (0: unknown, e.g. it ended unseen)
    uint64_t blockedNs = 0;
    char name[16] = {}; // its comm, "" when never read
};

// How the blocked threads were sampled (real-time mode): scans of /proc/self/task.
struct ScanSummary {
    uint64_t scans = 0;
    uint64_t periodNs = 0; // mean time between scans
    uint64_t costNs = 0; // CPU time the collector thread spent scanning
};

struct LiveMappings; // live_file.h

// An object dlclose unloaded, with its samples by file offset (collector/src/retired_objects.h).
struct RetiredObjectRecord {
    const char* path;
    const uint8_t* buildId;
    uint32_t buildIdSize;
};

// The samples outside the monitored object as they were taken (format version 2): the PCs with
// their counts, the executable mappings with the build ids of their files (as the live file keeps
// them), and the objects unloaded meanwhile. The reader attributes them to categories and objects.
struct RawOutside {
    const LiveMappings* mappings = nullptr; // nullptr: none could be read
    const PcSlot* pcs = nullptr; // slots of count 0 are skipped
    size_t pcCount = 0;
    const RetiredObjectRecord* retired = nullptr;
    size_t retiredCount = 0;
    const ObjectCountRecord* retiredHits = nullptr; // object: an index into `retired`
    size_t retiredHitCount = 0;
};

// The version of a profile with raw outside samples: their records, the counts without them, and
// blocked places outside the image as run-time addresses.
inline constexpr uint32_t kRawOutsideVersion = 2;
// Version 2 with call paths (issue 39): `call-paths` and `call-node` records, run-time addresses
// named through the `mapping` records as outside PCs are.
inline constexpr uint32_t kCallPathsVersion = 3;

struct ProfileOutput {
    const ProfileRecord* record = nullptr;
    const uint32_t* bins = nullptr; // record->layout.count counters
    const ObjectInfo* objects = nullptr;
    size_t objectCount = 0;
    const ObjectCountRecord* hits = nullptr; // sorted by object, then offset
    size_t hitCount = 0;
    const ThreadRecord* threads = nullptr;
    size_t threadCount = 0;
    const BlockedRecord* blocked = nullptr; // sorted by decreasing ns
    size_t blockedCount = 0;
    const ScanSummary* scan = nullptr; // nullptr: blocked threads were not sampled
    const RawOutside* raw = nullptr; // non-null: version 2, `objects` and `hits` are empty
    CallTree calls {}; // with `raw` and a node besides the root: version 3
};

// Bytes of the buffer writeProfile() formats into.
inline constexpr size_t kProfileWriteBuffer = 16384;

// Writes the whole profile to `fd`, formatting through the caller's `buffer` (kProfileWriteBuffer
// bytes is plenty; any size works). Returns 0 or the errno of the failed write. Safe to call from a
// signal handler; re-entrant as long as each writer has its own buffer.
int writeProfile(int fd, const ProfileOutput& output, char* buffer, size_t bufferSize);

// The same through one static buffer. Safe to call from a signal handler; not re-entrant.
int writeProfile(int fd, const ProfileOutput& output);

// Achieved sample rate in millihertz: timer ticks per active wall second (the posix-timer
// mechanism), else samples taken (samplesTaken) per active CPU second (both modes), `rawSamples` (in
// no count of the record) included. 0 when nothing was active.
uint64_t achievedRateMilliHz(const ProfileRecord& record, uint64_t rawSamples = 0);
// Requested rate in millihertz from the 100 ns interval.
uint64_t requestedRateMilliHz(uint64_t interval);

} // namespace ppe
