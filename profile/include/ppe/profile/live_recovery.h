// Recovery of a profile from the live file of a process that died without writing its .ppe
// (SIGKILL, the OOM killer, node loss after the kernel wrote the pages back).
#pragma once

#include "ppe/support/result.h"

#include <string>

namespace ppe {

// Reads NAME.ppe.PID.live and returns the text of a .ppe file with status "recovered", end time
// = the last sample. PCs outside the range are counted as unknown (the dead process's mappings
// cannot be read any more). Errors name the file.
Result<std::string> recoverLiveFile(const std::string& path);

// NAME.ppe.PID.live -> NAME.ppe ("" if the name does not have that form).
std::string profilePathForLiveFile(const std::string& path);

} // namespace ppe
