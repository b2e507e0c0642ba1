#include "text_common.h"

#include <fmt/format.h>

#include <algorithm>

namespace ppe::formatter {

namespace {

    void moduleSpread(std::string& out, const Imbalance& im)
    {
        size_t width = 11;
        for (const ModuleImbalance& m : im.modules)
            width = std::max(width, std::min(m.name.size(), kMaxNameWidth));
        out += fmt::format("{:>4}   {:<{}}  {:>10}  {:>7}  {:>7}  {:>7}  {:>8}  {:>6}\n", "#", "Module name", width,
            "Hits", "Min %", "Mean %", "Max %", "Max rank", "CV");
        size_t n = 0;
        for (const ModuleImbalance& m : im.modules) {
            out += fmt::format("{:>4} - {:<{}}  {:>10.0f}  {:>7.2f}  {:>7.2f}  {:>7.2f}  {:>8}  {:>6.3f}\n", ++n,
                fitName(m.name, width), width, m.hits, m.minPercent, m.meanPercent, m.maxPercent, m.maxRank,
                m.variation);
        }
    }

    void rankRow(std::string& out, const RankRow& r)
    {
        const std::string ending = r.status == "complete" ? r.endReason : r.status + ", " + r.endReason;
        out += fmt::format("{:>6}  {:>8}  {:>10}  {:>6.2f}  {:>9.1f}  {:>8.2f}  {:>6.1f}  {:>6.1f}  {}  {}\n", r.rank,
            r.pid, r.samples, r.percent, r.achievedRate, r.cpuSeconds, r.userPercent, r.systemPercent, ending, r.file);
    }

} // namespace

void imbalanceText(std::string& out, const Report& report)
{
    if (!report.imbalance)
        return;
    const Imbalance& im = *report.imbalance;
    out += fmt::format("\nPPE - PER-RANK IMBALANCE OF {} MERGED PROFILES.\n\n", im.ranks);
    out += fmt::format(" Each rank's share of its own in-range hits, for the top modules of the merge; Max rank: the "
                       "rank of the largest share (not necessarily of the most hits); CV: standard deviation / mean "
                       "over the ranks{}\n\n",
        im.ranksFromOrder ? "; ranks are the files' order (a profile had no rank record)" : "");
    moduleSpread(out, im);
    out += fmt::format("\n Samples per rank: mean {:.0f}, CV {:.3f}{}\n\n", im.meanSamples, im.samplesVariation,
        im.hiddenRanks ? fmt::format(
            "; the {} heaviest and the {} lightest ranks", im.hiddenAfter, im.rows.size() - im.hiddenAfter)
                       : "");
    out += fmt::format("{:>6}  {:>8}  {:>10}  {:>6}  {:>9}  {:>8}  {:>6}  {:>6}  {}\n", "Rank", "Pid", "Samples",
        "% all", "Rate Hz", "CPU s", "User %", "Sys %", "End  File");
    for (size_t i = 0; i < im.rows.size(); ++i) {
        if (im.hiddenRanks && i == im.hiddenAfter)
            out += fmt::format("{:>6}  ({} more ranks)\n", "...", im.hiddenRanks);
        rankRow(out, im.rows[i]);
    }
}

} // namespace ppe::formatter
