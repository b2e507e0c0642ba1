// Shared objects treated as the executable is: their samples by file offset become a profile of
// their own code, which the executable's path (buildReport, analyseLines) turns into modules and
// program text from the object's DWARF.
#pragma once

#include "ppe/formatter/report.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::formatter {

// True when `name` names the object at `path`: the path itself, its base name, or the base name
// up to a version suffix ("libkernel.so" names ".../libkernel.so.1").
bool objectNameMatches(std::string_view path, std::string_view name);

// The objects of `profile` to analyse: those with at least `thresholdPercent` of all samples and
// those `names` name (objectNameMatches).
std::vector<size_t> objectsForAnalysis(
    const Profile& profile, double thresholdPercent, const std::vector<std::string>& names);

// `object`'s samples as a profile of its code: one-byte bins at the link-time addresses
// `addressOfOffset` gives (offsets it does not place are left out), its executable code as the
// range, `profile`'s header and total. In range: the samples placed.
Profile objectProfile(const Profile& profile, const SharedObject& object,
    const std::function<std::optional<uint64_t>(uint64_t)>& addressOfOffset);

// The analysis section of `object` from the report made of its objectProfile: its module rows,
// and its program text with module names that say whose they are ("kernel.c in libkernel.so").
ObjectAnalysis objectAnalysis(const SharedObject& object, Report&& report);

} // namespace ppe::formatter
