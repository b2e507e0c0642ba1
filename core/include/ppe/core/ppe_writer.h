// The .ppe writer (format in docs/ppe-format.md). Safe to call from a signal handler; two
// profiles can be written at once (a checkpoint and the final profile) with a buffer each.
#pragma once

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

struct ProfileOutput {
    const ProfileRecord* record = nullptr;
    const uint32_t* bins = nullptr; // record->layout.count counters
    const ObjectInfo* objects = nullptr;
    size_t objectCount = 0;
    const ObjectCountRecord* hits = nullptr; // sorted by object, then offset
    size_t hitCount = 0;
};

// Bytes of the buffer writeProfile() formats into.
inline constexpr size_t kProfileWriteBuffer = 16384;

// Writes the whole profile to `fd`, formatting through the caller's `buffer` (kProfileWriteBuffer
// bytes is plenty; any size works). Returns 0 or the errno of the failed write. Safe to call from a
// signal handler; re-entrant as long as each writer has its own buffer.
int writeProfile(int fd, const ProfileOutput& output, char* buffer, size_t bufferSize);

// The same through one static buffer. Safe to call from a signal handler; not re-entrant.
int writeProfile(int fd, const ProfileOutput& output);

// Achieved sample rate in millihertz: samples per active CPU second (mode 1) or timer ticks per
// active wall second (mode 0). 0 when nothing was active.
uint64_t achievedRateMilliHz(const ProfileRecord& record);
// Requested rate in millihertz from the 100 ns interval.
uint64_t requestedRateMilliHz(uint64_t interval);

} // namespace ppe
