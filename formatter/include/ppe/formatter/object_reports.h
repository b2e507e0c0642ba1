// Shared objects treated as the executable is: their samples by file offset become a profile of
// their own code, which the executable's path (buildReport, analyseLines) turns into modules and
// program text from the object's DWARF.
#pragma once

#include "ppe/core/object_name.h"
#include "ppe/formatter/report.h"
#include "ppe/support/result.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::formatter {

// True when `name` names the object at `path`: the collector's rule for PPE_OBJECT, on the
// formatter's strings (core/object_name.h).
inline bool objectNameMatches(const std::string& path, const std::string& name)
{
    return ppe::objectNameMatches(path.c_str(), name.c_str());
}

// The objects of `profile` to analyse: those with at least `thresholdPercent` of all samples and
// those `names` name (objectNameMatches).
std::vector<size_t> objectsForAnalysis(
    const Profile& profile, double thresholdPercent, const std::vector<std::string>& names);

// `profile` as a profile of `object`: its samples become one-byte bins at the link-time addresses
// `code` places them at (offsets it does not place count as shared), its executable code is the
// range and it is the image (path, build id); the samples of the monitored image and of the other
// objects count as shared (those objects keep theirs by offset). The header and the total stay.
Profile objectProfile(const Profile& profile, const SharedObject& object, const ObjectCode& code);

// The shared object of `profile` that `name` names (objectNameMatches), or an error naming
// `profilePath` and the objects it has.
Result<size_t> findObject(const Profile& profile, const std::string& name, const std::string& profilePath);

// The analysis section of `object` from the report made of its objectProfile: its module rows,
// and its program text with module names that say whose they are ("kernel.c in libkernel.so").
ObjectAnalysis objectAnalysis(const SharedObject& object, Report&& report);

} // namespace ppe::formatter
