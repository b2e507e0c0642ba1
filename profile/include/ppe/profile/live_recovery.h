// Recovery of a profile from the live file of a process that died without writing its .ppe
// (SIGKILL, the OOM killer, node loss after the kernel wrote the pages back).
#pragma once

#include "ppe/support/result.h"

#include <string>
#include <vector>

namespace ppe {

// Reads a live file and returns the text of a .ppe file with status "recovered" and end-reason
// "killed" or, when the process that wrote it still runs (same pid, start time and boot),
// status "checkpoint" and end-reason "still running". Times run to the last sample in ns; the
// CPU time is the collector thread's last record (cpu-time-as-of); PCs outside the range are
// written raw with the executable mappings the collector thread kept that hold them (format
// version 2), for the reader to name as it names a collector's, or unknown in a file without them. What the caller
// should tell the user (still running, CPU time as of when) goes to `notes`. Errors name the file.
Result<std::string> recoverLiveFile(const std::string& path, std::vector<std::string>* notes = nullptr);

// NAME.ppe.PID.live -> NAME.ppe ("" if the name does not have that form).
std::string profilePathForLiveFile(const std::string& path);

} // namespace ppe
