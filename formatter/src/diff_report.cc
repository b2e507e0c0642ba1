#include "ppe/formatter/diff_report.h"

#include "ppe/formatter/address_sources.h"
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/inputs.h"
#include "ppe/formatter/thread_report.h"

#include "paths.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>

namespace ppe::formatter {

double twoSidedP(double z) { return std::erfc(std::fabs(z) / std::sqrt(2.0)); }

ZTest twoProportionTest(double x1, double n1, double x2, double n2)
{
    if (n1 <= 0 || n2 <= 0)
        return {};
    const double pooled = (x1 + x2) / (n1 + n2);
    const double se = std::sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    if (!(se > 0))
        return {};
    const double z = (x2 / n2 - x1 / n1) / se;
    return { z, twoSidedP(z) };
}

ZTest poissonTimeTest(double x1, double s1, double x2, double s2)
{
    // Var(x s) = x s^2 for a Poisson count x; with s1 = s2 this is the pooled (x2 - x1) / sqrt(x1 + x2).
    const double se = std::sqrt(x1 * s1 * s1 + x2 * s2 * s2);
    if (!(se > 0))
        return {};
    const double z = (x2 * s2 - x1 * s1) / se;
    return { z, twoSidedP(z) };
}

HolmResult holm(const std::vector<double>& p, double alpha)
{
    const size_t m = p.size();
    std::vector<size_t> order(m);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
    HolmResult out { std::vector<bool>(m, false), std::vector<double>(m, 0), std::vector<double>(m, 1) };
    bool rejecting = true; // step-down: the first p over its bound stops all rejections after it
    double adjusted = 0; // the running maximum keeps the adjusted p in the order of the p
    for (size_t rank = 0; rank < m; ++rank) {
        const size_t i = order[rank];
        out.threshold[i] = alpha / double(m - rank);
        rejecting = rejecting && p[i] <= out.threshold[i];
        out.rejected[i] = rejecting;
        adjusted = std::min(1.0, std::max(adjusted, double(m - rank) * p[i]));
        out.adjusted[i] = adjusted;
    }
    return out;
}

std::string movementOf(const DiffRow& r)
{
    const std::string way = r.time.z < 0 ? "faster" : "slower";
    if (r.timeSignificant && r.shareSignificant)
        return (r.time.z < 0) == (r.share.z < 0) ? way : way + ", less than the rest";
    if (r.timeSignificant)
        return way + ", like the rest";
    if (r.shareSignificant)
        return r.share.z < 0 ? "smaller share only" : "larger share only";
    return "-";
}

namespace {

    // A function row's own name: module names from a map with --by function are "NAME (UNIT)".
    std::string bareName(const ModuleRow& row)
    {
        const std::string suffix = " (" + row.unit + ")";
        if (row.function && !row.unit.empty() && row.name.size() > suffix.size() && row.name.ends_with(suffix))
            return row.name.substr(0, row.name.size() - suffix.size());
        return row.name;
    }

    // A function as the comparison shows it: with its unit, so that same-named statics differ.
    std::string displayName(const ModuleRow& row)
    {
        if (!row.function || row.unit.empty() || bareName(row) != row.name)
            return row.name;
        return row.name + " (" + row.unit + ")";
    }

    // What rows are matched by: a unit by its moduleKey (another build directory, another object
    // suffix: the same unit), a function by its unit's key and its name; `full` uses whole names.
    std::string rowKey(const ModuleRow& row, bool full)
    {
        if (!row.function)
            return "unit " + (full ? row.name : moduleKey(row.name));
        const std::string unit = row.unit.empty() ? "" : (full ? row.unit : moduleKey(row.unit));
        return "function " + unit + "\n" + bareName(row);
    }

    // The short keys that are not unique on a side: their rows are matched by full names.
    std::set<std::string> ambiguousKeys(const Report& a, const Report& b)
    {
        std::set<std::string> ambiguous;
        for (const Report* r : { &a, &b }) {
            std::set<std::string> seen;
            for (const ModuleRow& row : r->modules) {
                if (!seen.insert(rowKey(row, false)).second)
                    ambiguous.insert(rowKey(row, false));
            }
        }
        return ambiguous;
    }

    // The rows of one report by key. A key still taken twice (same-named units in same-named
    // directories) gets "#2", "#3" in the table's order rather than merging two rows.
    std::map<std::string, const ModuleRow*> keyedRows(const Report& r, const std::set<std::string>& ambiguous)
    {
        std::map<std::string, const ModuleRow*> rows;
        for (const ModuleRow& row : r.modules) {
            std::string key = rowKey(row, ambiguous.contains(rowKey(row, false)));
            for (int n = 2; rows.contains(key); ++n)
                key = rowKey(row, true) + "#" + std::to_string(n);
            rows.emplace(key, &row);
        }
        return rows;
    }

    struct Sides {
        double nBase, nChanged; // in-range counts
        double sBase, sChanged; // seconds per sample
        double wBase, wChanged; // intervals a sample stands for (Profile::sampleWeight)
    };

    Sides sidesOf(const Report& base, const Report& changed)
    {
        return { double(base.profile.inRange()), double(changed.profile.inRange()), secondsPerSample(base.profile),
            secondsPerSample(changed.profile), base.profile.sampleWeight(), changed.profile.sampleWeight() };
    }

    // The row's numbers and its two tests.
    DiffRow compareRow(std::string name, std::string unit, double hitsBase, double hitsChanged, const Sides& s)
    {
        DiffRow r;
        r.name = std::move(name);
        r.unit = std::move(unit);
        r.presence = hitsBase <= 0 ? DiffPresence::OnlyChanged
            : hitsChanged <= 0     ? DiffPresence::OnlyBase
                                   : DiffPresence::Both;
        r.base = shareOf(hitsBase, s.nBase, s.wBase);
        r.changed = shareOf(hitsChanged, s.nChanged, s.wChanged);
        r.deltaPercent = r.changed.percent - r.base.percent;
        // The tests count the samples taken: x / w samples of w intervals (and w s seconds) each.
        r.share = twoProportionTest(
            hitsBase / s.wBase, s.nBase / s.wBase, hitsChanged / s.wChanged, s.nChanged / s.wChanged);
        r.baseSeconds = hitsBase * s.sBase;
        r.changedSeconds = hitsChanged * s.sChanged;
        r.deltaSeconds = r.changedSeconds - r.baseSeconds;
        r.secondsError
            = std::sqrt(hitsBase * s.wBase * s.sBase * s.sBase + hitsChanged * s.wChanged * s.sChanged * s.sChanged);
        r.time
            = poissonTimeTest(hitsBase / s.wBase, s.sBase * s.wBase, hitsChanged / s.wChanged, s.sChanged * s.wChanged);
        return r;
    }

    // Holm's correction over the table's rows, for the share test and the time test each.
    void correct(DiffTable& table, double alpha)
    {
        std::vector<double> shareP, timeP;
        for (const DiffRow& r : table.rows) {
            shareP.push_back(r.share.p);
            timeP.push_back(r.time.p);
        }
        const HolmResult share = holm(shareP, alpha);
        const HolmResult time = holm(timeP, alpha);
        for (size_t i = 0; i < table.rows.size(); ++i) {
            DiffRow& r = table.rows[i];
            r.shareP = share.adjusted[i];
            r.timeP = time.adjusted[i];
            r.shareSignificant = share.rejected[i];
            r.timeSignificant = time.rejected[i];
            r.significant = r.shareSignificant && r.timeSignificant && (r.share.z < 0) == (r.time.z < 0);
            r.movement = movementOf(r);
            table.significant += r.significant ? 1 : 0;
            table.timeChanged += r.timeSignificant ? 1 : 0;
            table.shareChanged += r.shareSignificant ? 1 : 0;
        }
        table.compared = table.rows.size();
    }

    // Rows that changed by themselves, then those whose time changed, then those whose share did.
    int verdictRank(const DiffRow& r) { return r.significant ? 0 : r.timeSignificant ? 1 : r.shareSignificant ? 2 : 3; }

    void sortRows(std::vector<DiffRow>& rows)
    {
        std::stable_sort(rows.begin(), rows.end(), [](const DiffRow& a, const DiffRow& b) {
            if (verdictRank(a) != verdictRank(b))
                return verdictRank(a) < verdictRank(b);
            if (std::fabs(a.deltaSeconds) != std::fabs(b.deltaSeconds))
                return std::fabs(a.deltaSeconds) > std::fabs(b.deltaSeconds);
            return a.name < b.name;
        });
    }

} // namespace

DiffTable diffTable(const Report& base, const Report& changed, ModuleKind kind, double alpha)
{
    const std::set<std::string> ambiguous = ambiguousKeys(base, changed);
    const std::map<std::string, const ModuleRow*> baseRows = keyedRows(base, ambiguous);
    const std::map<std::string, const ModuleRow*> changedRows = keyedRows(changed, ambiguous);
    const Sides sides = sidesOf(base, changed);
    DiffTable table;
    table.kind = kind;
    for (const auto& [key, row] : changedRows) {
        const auto found = baseRows.find(key);
        const double before = found == baseRows.end() ? 0 : found->second->hits;
        table.rows.push_back(compareRow(displayName(*row), row->unit, before, row->hits, sides));
    }
    for (const auto& [key, row] : baseRows) {
        if (!changedRows.contains(key))
            table.rows.push_back(compareRow(displayName(*row), row->unit, row->hits, 0, sides));
    }
    if (base.unattributed.hits > 0 || changed.unattributed.hits > 0)
        table.rows.push_back(compareRow("(no module)", "", base.unattributed.hits, changed.unattributed.hits, sides));
    correct(table, alpha);
    sortRows(table.rows);
    return table;
}

DiffSide diffSide(const Report& report, const std::string& path)
{
    const Profile& p = report.profile;
    DiffSide s;
    s.path = path;
    s.image = p.image;
    s.buildId = p.buildId;
    s.host = p.host;
    s.startTime = p.startTime;
    s.mechanism = p.mechanism;
    s.cpuTime = report.cpuTime;
    s.total = p.total;
    s.inRange = p.inRange();
    s.cpuSeconds = report.totals.cpuSeconds;
    s.intervalMs = report.totals.intervalMs;
    s.achievedRate = report.totals.sampledRate;
    s.secondsPerSample = secondsPerSample(p);
    s.sampledSeconds = double(s.inRange) * s.secondsPerSample;
    return s;
}

namespace {

    // A request for the module table alone: no program text, no shared objects.
    ReportRequest tableRequest(ReportRequest request, ModuleKind kind)
    {
        request.by = kind;
        request.lineThreshold = 101;
        request.objectThreshold = 101;
        request.objectLines.clear();
        return request;
    }

    // Each message once: both sides' reports are made once per table.
    void addOnce(Messages& messages, const Messages& more)
    {
        for (const Message& m : more) {
            const bool seen
                = std::any_of(messages.begin(), messages.end(), [&](const Message& o) { return o.text == m.text; });
            if (!seen)
                messages.push_back(m);
        }
    }

    Result<Report> tableReport(const ReportRequest& request, ModuleKind kind, Messages& messages)
    {
        Messages more;
        Result<Report> report = makeReport(tableRequest(request, kind), more);
        addOnce(messages, more);
        return report;
    }

    // The base takes the changed side's map, executable and listings when it has none of its own
    // and is a profile of the same build; a note or warning when the programs differ.
    Result<ReportRequest> baseRequest(ReportRequest base, const ReportRequest& changed, Messages& messages)
    {
        auto before = readProfiles(base.profiles);
        if (!before)
            return before.error();
        auto after = readProfiles(changed.profiles);
        if (!after)
            return after.error();
        const std::string& path = base.profiles.front();
        const bool sameBuild = !before->buildId.empty() && before->buildId == after->buildId;
        if (sameBuild && base.map.empty() && base.exe.empty()) {
            base.map = changed.map;
            base.exe = changed.exe;
            base.listings = changed.listings;
        }
        if (baseName(before->image) != baseName(after->image))
            addWarning(messages,
                fmt::format("{}: a profile of {}, not of {} as {} is: rows are matched by name, the comparison may "
                            "mean little",
                    path, before->image, after->image, changed.profiles.front()));
        else if (!sameBuild)
            addNote(messages,
                fmt::format("{}: another build of {} than {}: each is formatted with its own map or DWARF, rows "
                            "matched by name",
                    path, baseName(after->image), changed.profiles.front()));
        return base;
    }

    void addProgramTime(DiffReport& d)
    {
        d.sameBuild = !d.base.buildId.empty() && d.base.buildId == d.changed.buildId;
        d.deltaSeconds = d.changed.sampledSeconds - d.base.sampledSeconds;
        d.deltaSecondsPercent = d.base.sampledSeconds > 0 ? 100.0 * d.deltaSeconds / d.base.sampledSeconds : 0;
        d.time = poissonTimeTest(
            double(d.base.inRange), d.base.secondsPerSample, double(d.changed.inRange), d.changed.secondsPerSample);
        d.timeSignificant = !d.sameBuild && d.time.p <= d.alpha;
    }

    void addWarnings(std::vector<std::string>& warnings, const std::string& path, const Report& report)
    {
        for (const std::string& w : report.warnings) {
            std::string text = w.starts_with(path) ? w : path + ": " + w;
            if (std::find(warnings.begin(), warnings.end(), text) == warnings.end())
                warnings.push_back(std::move(text));
        }
    }

} // namespace

Result<Report> makeDiffReport(const ReportRequest& baseAsked, const ReportRequest& changed, Messages& messages)
{
    auto base = baseRequest(baseAsked, changed, messages);
    if (!base)
        return base.error();
    DiffReport d;
    std::optional<Report> shown; // the new side's report of the first kind: the one the renderers draw
    std::vector<ModuleKind> kinds { changed.by };
    if (changed.by != ModuleKind::Function) // units, files or the automatic choice: functions as well
        kinds.push_back(ModuleKind::Function);
    for (ModuleKind kind : kinds) {
        auto before = tableReport(*base, kind, messages);
        auto after = before ? tableReport(changed, kind, messages) : before;
        if ((!before || !after) && d.tables.empty())
            return (!before ? before : after).error();
        if (!before || !after) {
            addWarning(messages, (!before ? before : after).error().str() + ": no function table");
            continue;
        }
        if (d.tables.empty()) {
            d.base = diffSide(*before, base->profiles.front());
            d.changed = diffSide(*after, changed.profiles.front());
        }
        addWarnings(d.warnings, d.base.path, *before);
        addWarnings(d.warnings, d.changed.path, *after);
        // The automatic choice named: units or files, as the new side's report resolved it.
        d.tables.push_back(diffTable(*before, *after, kind == ModuleKind::Auto ? after->moduleKind : kind, d.alpha));
        if (!shown)
            shown = std::move(*after);
    }
    addProgramTime(d);
    shown->diff = std::move(d);
    return std::move(*shown);
}

} // namespace ppe::formatter
