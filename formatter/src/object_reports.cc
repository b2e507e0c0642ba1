#include "ppe/formatter/object_reports.h"

#include "paths.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace ppe::formatter {

// Fewer hits than this are not analysed unless named: a line analysis of one or two samples (a
// libc call in a short run) says nothing and fills the report.
constexpr uint64_t kMinHitsForAnalysis = 10;

std::vector<size_t> objectsForAnalysis(
    const Profile& profile, double thresholdPercent, const std::vector<std::string>& names)
{
    std::vector<size_t> chosen;
    const double total = double(profile.total);
    for (size_t i = 0; i < profile.objects.size(); ++i) {
        const SharedObject& o = profile.objects[i];
        const bool named = std::any_of(
            names.begin(), names.end(), [&](const std::string& n) { return objectNameMatches(o.path, n); });
        const bool busy
            = o.hits >= kMinHitsForAnalysis && total > 0 && 100.0 * double(o.hits) / total >= thresholdPercent;
        if (named || busy)
            chosen.push_back(i);
    }
    return chosen;
}

Profile objectProfile(const Profile& profile, const SharedObject& object, const ObjectCode& code)
{
    Profile p = profile;
    p.image = object.path;
    p.buildId = object.buildId;
    p.loadBias = 0; // not known: the run-time addresses are gone, the offsets are placed by the file
    p.codeSections.clear(); // the executable's: the map check must not hold the object's map to them
    // Blocked places name the executable and the object list as they were: not this profile's.
    p.blocked.clear();
    p.scan.reset();
    p.binWidth = 1;
    p.bins.clear();
    std::map<uint64_t, uint64_t> byAddress;
    for (const ObjectSamples& s : object.hitsByOffset) {
        if (const std::optional<uint64_t> address = code.addressOfOffset(s.fileOffset))
            byAddress[*address] += s.count;
    }
    uint64_t placed = 0;
    p.maxBin = 0;
    for (const auto& [address, count] : byAddress) {
        p.bins.push_back(Bin { address, count });
        placed += count;
        p.maxBin = std::max(p.maxBin, count);
    }
    p.rangeStart = code.code.end > code.code.start ? code.code.start : (p.bins.empty() ? 0 : p.bins.front().address);
    p.rangeEnd = code.code.end > code.code.start ? code.code.end : (p.bins.empty() ? 0 : p.bins.back().address + 1);
    p.binCount = p.rangeEnd - p.rangeStart;
    p.counts[kShared]
        = p.counts[kShared] - placed + profile.inRange() + profile.counts[kBelow] + profile.counts[kAbove];
    p.counts[kInRange] = placed;
    p.counts[kBelow] = p.counts[kAbove] = 0;
    p.saturated = 0;
    std::erase_if(p.objects, [&](const SharedObject& o) { return o.path == object.path; });
    return p;
}

Result<size_t> findObject(const Profile& profile, const std::string& name, const std::string& profilePath)
{
    std::vector<size_t> found;
    std::string names;
    for (size_t i = 0; i < profile.objects.size(); ++i) {
        names += (names.empty() ? "" : ", ") + std::string(baseName(profile.objects[i].path));
        if (objectNameMatches(profile.objects[i].path, name))
            found.push_back(i);
    }
    if (found.size() == 1)
        return found.front();
    if (found.empty())
        return Error { profilePath, 0,
            fmt::format(
                "no shared object named {} took samples (those that did: {})", name, names.empty() ? "none" : names) };
    return Error { profilePath, 0, fmt::format("{} shared objects are named {}: give the path", found.size(), name) };
}

ObjectAnalysis objectAnalysis(const SharedObject& object, Report&& report)
{
    const std::string name(baseName(object.path));
    ObjectAnalysis a { object.path, name, double(object.hits),
        report.profile.total ? 100.0 * double(object.hits) / double(report.profile.total) : 0,
        std::move(report.modules), report.unattributed, std::move(report.lines) };
    return a;
}

} // namespace ppe::formatter
