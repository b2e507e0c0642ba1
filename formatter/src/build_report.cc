#include "ppe/formatter/report.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

namespace ppe {

double binomialErrorPercent(double hits, double n)
{
    if (n <= 0)
        return 0;
    const double p = hits / n;
    return 100.0 * std::sqrt(p * (1.0 - p) / n);
}

namespace {

struct Piece {
    AddressRange range;
    size_t module;
};

std::vector<Piece> piecesByAddress(const std::vector<CodeModule>& modules)
{
    std::vector<Piece> pieces;
    for (size_t m = 0; m < modules.size(); ++m) {
        for (const AddressRange& r : modules[m].ranges)
            pieces.push_back(Piece { r, m });
    }
    std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.range.start < b.range.start; });
    return pieces;
}

// Spreads one bin over the pieces it overlaps; returns the part no piece owns.
double attributeBin(const Bin& bin, uint32_t width, const std::vector<Piece>& pieces, std::vector<double>& hits,
    bool& split)
{
    const uint64_t end = bin.address + width;
    auto first = std::upper_bound(pieces.begin(), pieces.end(), bin.address,
        [](uint64_t address, const Piece& p) { return address < p.range.start; });
    if (first != pieces.begin())
        --first;
    double owned = 0;
    size_t owners = 0;
    for (auto p = first; p != pieces.end() && p->range.start < end; ++p) {
        const uint64_t lo = std::max(bin.address, p->range.start);
        const uint64_t hi = std::min(end, p->range.end);
        if (hi <= lo)
            continue;
        const double share = double(bin.count) * double(hi - lo) / double(width);
        hits[p->module] += share;
        owned += share;
        ++owners;
    }
    split |= owners > 1;
    return double(bin.count) - owned;
}

std::vector<ModuleRow> rankModules(const std::vector<CodeModule>& modules, const std::vector<double>& hits, double n)
{
    std::vector<ModuleRow> rows;
    for (size_t m = 0; m < modules.size(); ++m) {
        if (hits[m] <= 0)
            continue;
        rows.push_back(ModuleRow { modules[m].name, hits[m], 100.0 * hits[m] / n, binomialErrorPercent(hits[m], n), 0,
            modules[m].address(), modules[m].size() });
    }
    std::stable_sort(rows.begin(), rows.end(), [](const ModuleRow& a, const ModuleRow& b) {
        return a.hits != b.hits ? a.hits > b.hits : a.address < b.address;
    });
    double accumulated = 0;
    for (ModuleRow& row : rows) {
        accumulated += row.hits;
        row.accumulated = 100.0 * accumulated / n;
    }
    return rows;
}

} // namespace

Report buildReport(Profile profile, const std::vector<CodeModule>& modules)
{
    Report report;
    const std::vector<Piece> pieces = piecesByAddress(modules);
    std::vector<double> hits(modules.size(), 0.0);
    for (const Bin& bin : profile.bins)
        report.unattributed += attributeBin(bin, profile.binWidth, pieces, hits, report.splitBins);
    const double n = double(profile.inRange());
    if (n > 0)
        report.modules = rankModules(modules, hits, n);
    if (report.unattributed > 0.5) {
        report.warnings.push_back(fmt::format("{:.0f} of {:.0f} in-range hits ({:.2f}%) fell where no module's code is "
                                              "(padding between sections, PLT, start-up code or skid)",
            report.unattributed, n, 100.0 * report.unattributed / n));
    }
    report.profile = std::move(profile);
    return report;
}

} // namespace ppe
