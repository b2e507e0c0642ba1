// Names for places of the code in the blocked-time table: "function (file:line)" in the program,
// "function (libc.so.6)" in a shared object.
#pragma once

#include "ppe/debuginfo/debug_info.h"
#include "ppe/formatter/report.h"
#include "ppe/formatter/thread_report.h"

#include <string>
#include <vector>

namespace ppe::formatter {

// A namer over the program's `modules` and line `tables`, the functions of `image` (nullptr when
// it was not read) and the shared objects of `profile`, read on demand from `debugDirs`. Every
// address is taken as the end of an instruction (a return address, or the PC after a system call):
// the instruction before it is named. They must outlive the namer.
PlaceNamer makePlaceNamer(const Profile& profile, const std::vector<CodeModule>& modules,
    const std::vector<LineTable>& tables, const debuginfo::DebugInfo* image, const std::vector<std::string>& debugDirs);

// The same naming the function alone ("function", "function (libc.so.6)"): call paths' (issue 39).
PlaceNamer makeFunctionNamer(const Profile& profile, const std::vector<CodeModule>& modules,
    const std::vector<LineTable>& tables, const debuginfo::DebugInfo* image, const std::vector<std::string>& debugDirs);

} // namespace ppe::formatter
