// Writing the live profile to a .ppe file (format in docs/ppe-format.md): attribute the PCs outside
// the range to shared objects, the vDSO or anonymous code by /proc/self/maps, then write, keep any
// old file as a backup, and rename into place. Symbols, listings and DWARF are the formatter's.
#pragma once

#include "live_profile.h"
#include "ppe/core/ppe_writer.h"
#include "ppe/core/profile_record.h"

#include <span>

namespace ppe {

// Memory one writing of the profile needs, mapped before sampling starts so that writing
// allocates nothing. Two writers at once (a checkpoint and the final profile) need one each.
struct OutputScratch;
OutputScratch* createOutputScratch();

// Writes `live` (with `activeUs` of sampling so far) to `path`, falling back to the current
// directory when the target directory cannot be written. `replacing`: what is at `path` is this
// run's own earlier checkpoint, replaced without a backup. On success copies the name written to
// `written` (PATH_MAX bytes) and returns 0; otherwise returns an errno value and leaves any
// existing file untouched. Signal-safe; not re-entrant for one `scratch`.
int writeProfileFile(const LiveProfile& live, OutputScratch* scratch, const char* path, const char* reason,
    ProfileStatus status, uint64_t activeUs, uint64_t wallUs, char* written, bool replacing = false);

// The record as the last writeProfileFile with `scratch` wrote it: every sample in its category,
// the outside ones included. Signal-safe.
const ProfileRecord& writtenRecord(const OutputScratch* scratch);

// The threads as the last writeProfileFile with `scratch` wrote them. Signal-safe.
std::span<const ThreadRecord> writtenThreads(const OutputScratch* scratch);

} // namespace ppe
