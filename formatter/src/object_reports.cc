#include "ppe/formatter/object_reports.h"

#include "paths.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace ppe::formatter {

bool objectNameMatches(std::string_view path, std::string_view name)
{
    if (name.empty())
        return false;
    if (path == name)
        return true;
    const std::string_view base = baseName(path);
    return base == name || (base.starts_with(name) && base[name.size()] == '.');
}

std::vector<size_t> objectsForAnalysis(
    const Profile& profile, double thresholdPercent, const std::vector<std::string>& names)
{
    std::vector<size_t> chosen;
    const double total = double(profile.total);
    for (size_t i = 0; i < profile.objects.size(); ++i) {
        const SharedObject& o = profile.objects[i];
        const bool named = std::any_of(
            names.begin(), names.end(), [&](const std::string& n) { return objectNameMatches(o.path, n); });
        const bool busy = o.hits > 0 && total > 0 && 100.0 * double(o.hits) / total >= thresholdPercent;
        if (named || busy)
            chosen.push_back(i);
    }
    return chosen;
}

Profile objectProfile(const Profile& profile, const SharedObject& object,
    const std::function<std::optional<uint64_t>(uint64_t)>& addressOfOffset)
{
    Profile p;
    p.status = profile.status;
    p.mode = profile.mode;
    p.granularity = profile.granularity;
    p.binWidth = 1;
    p.total = profile.total;
    std::map<uint64_t, uint64_t> byAddress;
    for (const ObjectSamples& s : object.hitsByOffset) {
        if (const std::optional<uint64_t> address = addressOfOffset(s.fileOffset))
            byAddress[*address] += s.count;
    }
    for (const auto& [address, count] : byAddress) {
        p.bins.push_back(Bin { address, count });
        p.counts[kInRange] += count;
        p.maxBin = std::max(p.maxBin, count);
    }
    if (!p.bins.empty()) {
        p.rangeStart = p.bins.front().address;
        p.rangeEnd = p.bins.back().address + 1;
        p.binCount = p.rangeEnd - p.rangeStart;
    }
    return p;
}

ObjectAnalysis objectAnalysis(const SharedObject& object, Report&& report)
{
    const std::string name(baseName(object.path));
    ObjectAnalysis a { object.path, name, double(object.hits),
        report.profile.total ? 100.0 * double(object.hits) / double(report.profile.total) : 0,
        std::move(report.modules), report.unattributed, std::move(report.lines) };
    for (ModuleLines& m : a.lines)
        m.name = fmt::format("{} in {}", m.name, name);
    return a;
}

} // namespace ppe::formatter
