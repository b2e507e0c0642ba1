// Writing the live profile to a .ppe file: attribute the PCs outside the range to shared objects,
// the vDSO or anonymous code, then write, keep any old file as a backup, and rename into place.
#pragma once

#include "live_profile.h"

namespace ppe {

// Memory the report needs, mapped before sampling starts so that writing allocates nothing.
struct ReportScratch;
ReportScratch* createReportScratch();

// Writes `live` (with `activeUs` of sampling so far) to `path`, falling back to the current
// directory when the target directory cannot be written. `replacing`: what is at `path` is this
// run's own earlier checkpoint, replaced without a backup. On success copies the name written to
// `written` (PATH_MAX bytes) and returns 0; otherwise returns an errno value and leaves any
// existing file untouched. Signal-safe; not re-entrant.
int writeReport(const LiveProfile& live, ReportScratch* scratch, const char* path, const char* reason,
    ProfileStatus status, uint64_t activeUs, uint64_t wallUs, char* written, bool replacing = false);

} // namespace ppe
