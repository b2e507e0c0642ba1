// Writing the live profile to a .ppe file (format in docs/ppe-format.md): the PCs outside the
// range as they are, with the mappings of /proc/self/maps that hold them (the reader attributes
// them to shared objects, the vDSO or anonymous code), then write, keep any old file as a backup,
// and rename into place. Symbols, listings and DWARF are the formatter's.
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

// Writes `live` (with `activeUs` of sampling so far) to `path`. When the target directory cannot
// take the file for any reason (no permission, no such directory, a name too long, a full disk,
// another user's symlink or FIFO at the name: output_file.h), writes the same name (cut to 200
// bytes if longer) to the current directory instead, saying why in one line. A device or FIFO at
// `path` is written into only when the user named it (output_names.h userNamedOutput). `replacing`:
// what is at `path` is this run's own earlier checkpoint, replaced without a backup. On success
// copies the name written to `written` (PATH_MAX bytes) and returns 0; otherwise returns an errno
// value and leaves any existing file untouched. Signal-safe; not re-entrant for one `scratch`.
int writeProfileFile(const LiveProfile& live, OutputScratch* scratch, const char* path, const char* reason,
    ProfileStatus status, uint64_t activeUs, uint64_t wallUs, char* written, bool replacing = false);

// The record as the last writeProfileFile with `scratch` wrote it, then the samples outside the
// monitored object (which the reader attributes) added to its unknown count: totalSamples() is
// every sample. Signal-safe.
const ProfileRecord& writtenRecord(const OutputScratch* scratch);

// The threads as the last writeProfileFile with `scratch` wrote them. Signal-safe.
std::span<const ThreadRecord> writtenThreads(const OutputScratch* scratch);

} // namespace ppe
