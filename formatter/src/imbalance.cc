#include "ppe/formatter/imbalance.h"

#include "ppe/formatter/build_report.h"

#include "ordered_pool.h"
#include "sampled_time.h"

#include <algorithm>
#include <cmath>

namespace ppe::formatter {

namespace {

    // One rank: its totals, and its shares of the top modules (% of its in-range hits).
    struct RankShares {
        RankRow row;
        std::vector<double> percents;
        bool noRank = false; // the profile has no rank record
    };

    RankRow rankRow(const Profile& p, const std::string& file)
    {
        RankRow r;
        r.rank = p.rank.value_or(0);
        r.pid = p.pid;
        r.file = file;
        r.samples = p.total;
        r.achievedRate = sampledRateOf(p); // over the user time the perf mechanisms sample
        r.cpuSeconds = p.cpuUser + p.cpuSystem;
        r.userPercent = r.cpuSeconds > 0 ? 100 * p.cpuUser / r.cpuSeconds : 0;
        r.systemPercent = r.cpuSeconds > 0 ? 100 * p.cpuSystem / r.cpuSeconds : 0;
        r.status = statusName(p.status);
        r.endReason = p.endReason;
        return r;
    }

    // The shares of `top` (module indexes) in one rank's profile, as its own report's module table
    // would give them (% of its in-range samples).
    std::vector<double> sharesOf(
        const Profile& one, const std::vector<CodePiece>& pieces, size_t modules, const std::vector<size_t>& top)
    {
        std::vector<double> percents(top.size(), 0.0);
        const double n = double(one.inRange());
        if (n <= 0)
            return percents;
        const std::vector<double> hits = moduleHits(one, pieces, modules);
        for (size_t k = 0; k < top.size(); ++k)
            percents[k] = hits[top[k]] > 0 ? 100.0 * hits[top[k]] / n : 0;
        return percents;
    }

    // Standard deviation over mean (0 when the mean is 0).
    double variationOf(const std::vector<double>& values, double* meanOut = nullptr)
    {
        double sum = 0;
        for (double v : values)
            sum += v;
        const double mean = values.empty() ? 0 : sum / double(values.size());
        double squares = 0;
        for (double v : values)
            squares += (v - mean) * (v - mean);
        if (meanOut)
            *meanOut = mean;
        return mean > 0 ? std::sqrt(squares / double(values.size())) / mean : 0;
    }

    ModuleImbalance moduleImbalance(const ModuleRow& row, const std::vector<RankShares>& ranks, size_t k)
    {
        ModuleImbalance m;
        m.name = row.name;
        m.hits = row.hits;
        std::vector<double> shares;
        m.minPercent = ranks.front().percents[k];
        for (const RankShares& r : ranks) {
            const double share = r.percents[k];
            shares.push_back(share);
            m.minPercent = std::min(m.minPercent, share);
            if (share > m.maxPercent || shares.size() == 1) {
                m.maxPercent = share;
                m.maxRank = r.row.rank;
            }
        }
        m.variation = variationOf(shares, &m.meanPercent);
        return m;
    }

    // All ranks in rank order when they are few; else the heaviest and the lightest.
    void chooseRows(Imbalance& imbalance, std::vector<RankRow> rows)
    {
        if (rows.size() <= kImbalanceRankRows) {
            std::stable_sort(
                rows.begin(), rows.end(), [](const RankRow& a, const RankRow& b) { return a.rank < b.rank; });
            imbalance.rows = std::move(rows);
            return;
        }
        std::stable_sort(
            rows.begin(), rows.end(), [](const RankRow& a, const RankRow& b) { return a.samples > b.samples; });
        const size_t half = kImbalanceRankRows / 2;
        imbalance.hiddenAfter = half;
        imbalance.hiddenRanks = rows.size() - 2 * half;
        imbalance.rows.assign(rows.begin(), rows.begin() + long(half));
        imbalance.rows.insert(imbalance.rows.end(), rows.end() - long(half), rows.end());
    }

} // namespace

std::vector<CodePiece> modulePieces(const std::vector<CodeModule>& modules)
{
    std::vector<CodePiece> pieces;
    for (size_t m = 0; m < modules.size(); ++m) {
        for (const AddressSpan& r : modules[m].ranges)
            pieces.push_back(CodePiece { r, m });
    }
    std::sort(pieces.begin(), pieces.end(),
        [](const CodePiece& a, const CodePiece& b) { return a.range.start < b.range.start; });
    return pieces;
}

std::vector<double> moduleHits(const Profile& profile, const std::vector<CodePiece>& pieces, size_t modules)
{
    // build_report.cc's attributeBin, its sums in the same order, but with one walk over the
    // pieces (the bins ascend) instead of a search for each bin.
    std::vector<double> hits(modules, 0.0);
    auto first = pieces.begin();
    for (const Bin& bin : profile.bins) {
        while (
            first != pieces.end() && std::next(first) != pieces.end() && std::next(first)->range.start <= bin.address)
            ++first;
        const uint64_t end = bin.address + profile.binWidth;
        for (auto p = first; p != pieces.end() && p->range.start < end; ++p) {
            const uint64_t lo = std::max(bin.address, p->range.start);
            const uint64_t hi = std::min(end, p->range.end);
            if (hi > lo)
                hits[p->owner] += double(bin.count) * double(hi - lo) / double(profile.binWidth);
        }
    }
    return hits;
}

void addImbalance(Report& report, const std::vector<CodeModule>& modules, const std::vector<std::string>& files,
    const std::function<Result<Profile>(const std::string&)>& read, Messages& messages)
{
    if (files.size() < 2)
        return;
    std::vector<size_t> top;
    for (size_t k = 0; k < report.modules.size() && k < kImbalanceModules; ++k)
        top.push_back(report.modules[k].module);
    const std::vector<CodePiece> pieces = modulePieces(modules);
    Imbalance imbalance;
    std::vector<RankShares> ranks;
    ranks.reserve(files.size());
    bool unreadable = false;
    // Each file is read and attributed on a worker (ordered_pool.h); the ranks are taken in order.
    produceInOrder<Result<RankShares>>(
        files.size(),
        [&](size_t i) -> Result<RankShares> {
            auto profile = read(files[i]);
            if (!profile)
                return profile.error();
            RankShares r { rankRow(*profile, files[i]), {}, !profile->rank };
            r.percents = sharesOf(*profile, pieces, modules.size(), top);
            return r;
        },
        [&](size_t, Result<RankShares>& r) {
            if (!r) {
                addWarning(messages, r.error().str() + " (read again for the per-rank imbalance, which is left out)");
                unreadable = true;
                return false;
            }
            imbalance.ranksFromOrder |= r->noRank;
            ranks.push_back(std::move(*r));
            return true;
        });
    if (unreadable)
        return;
    std::vector<double> samples;
    for (size_t i = 0; i < ranks.size(); ++i) {
        if (imbalance.ranksFromOrder)
            ranks[i].row.rank = i;
        ranks[i].row.percent
            = report.profile.total ? 100.0 * double(ranks[i].row.samples) / double(report.profile.total) : 0;
        samples.push_back(double(ranks[i].row.samples));
    }
    for (size_t k = 0; k < top.size(); ++k)
        imbalance.modules.push_back(moduleImbalance(report.modules[k], ranks, k));
    imbalance.ranks = ranks.size();
    imbalance.samplesVariation = variationOf(samples, &imbalance.meanSamples);
    // The rows moved out, and each rank's shares freed as it goes: 100 000 ranks' rows are held once.
    std::vector<RankRow> rows;
    rows.reserve(ranks.size());
    for (RankShares& r : ranks) {
        rows.push_back(std::move(r.row));
        r.percents = {};
    }
    ranks = {};
    chooseRows(imbalance, std::move(rows));
    report.imbalance = std::move(imbalance);
}

} // namespace ppe::formatter
