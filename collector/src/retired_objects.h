// Shared objects that dlclose unloads while the profile runs. Their samples sit in the table of
// outside PCs by run-time address, which means nothing once the object is unmapped (and may be
// another object's later). At dlclose the collector moves them out, by file offset, with the
// object's path and build id, so the report still names the object and its functions.
#pragma once

#include "ppe/core/pc_table.h"
#include "ppe/core/profile_record.h"

#include <climits>
#include <cstdint>

namespace ppe {

inline constexpr uint32_t kMaxRetiredObjects = 256;
inline constexpr uint32_t kMaxRetiredHits = 1u << 14;

struct RetiredObject {
    char path[PATH_MAX];
    uint8_t buildId[kMaxBuildId];
    uint32_t buildIdSize;
};

struct RetiredHit {
    uint32_t object; // index into RetiredObjects::objects
    uint64_t fileOffset;
    uint64_t count;
};

struct RetiredObjects {
    uint32_t objectCount; // published with release after the entries are written
    uint32_t hitCount;
    uint64_t lost; // samples of unloaded objects that did not fit
    RetiredObject objects[kMaxRetiredObjects];
    RetiredHit hits[kMaxRetiredHits];
};

// Runs `realDlclose(handle)`; when that unmaps the object, moves the samples `pcs` holds for it
// into the retired store. Not signal-safe (dlinfo, a mutex); allocates nothing but one mapping
// the first time. Returns what realDlclose returned.
int closeAndRetire(void* handle, int (*realDlclose)(void*), PcSlot* pcs);

// The store, or nullptr when nothing was unloaded. Its counts are read with acquire.
const RetiredObjects* retiredObjects();

// Forgets everything retired (in a forked child, whose profile starts empty). Signal-safe.
void forgetRetiredObjects();

} // namespace ppe
