#include "ppe/formatter/text_diff.h"

#include "text_common.h"

#include <algorithm>
#include <fmt/format.h>

namespace ppe::formatter {

namespace {

    std::string sideLine(const char* label, const DiffSide& s)
    {
        return fmt::format(" {:<5} {}  image {}{}  on {}, sampled by {} ({})\n", label, s.path, s.image,
            s.buildId.empty() ? "" : "  (build id " + s.buildId + ")", s.host, s.mechanism,
            s.cpuTime ? "CPU time" : "real time");
    }

    // The program time's change: a test between two builds; between two runs of one build, what
    // the machine did, which no sampling error covers.
    std::string programTimeChange(const DiffReport& d)
    {
        const std::string change = fmt::format("change {:+.3f} s ({:+.2f}%)", d.deltaSeconds, d.deltaSecondsPercent);
        if (d.sameBuild)
            return change
                + ": two runs of one build, run-to-run variation of the machine, which the binomial errors do not "
                  "cover";
        return fmt::format("{}, z {:.2f}, p {:.2g}: {}", change, d.time.z, d.time.p,
            d.timeSignificant ? "significant" : "not significant");
    }

    void header(std::string& out, const DiffReport& d)
    {
        const DiffSide& b = d.base;
        const DiffSide& c = d.changed;
        out += "ppe profile comparison\n";
        out += sideLine("Base:", b);
        out += sideLine("New:", c);
        out += '\n';
        out += fmt::format(" {:<24} {:>12} {:>12}\n", "", "Base", "New");
        out += fmt::format(" {:<24} {:>12} {:>12}\n", "Total count", b.total, c.total);
        out += fmt::format(" {:<24} {:>12} {:>12}\n", "In range count", b.inRange, c.inRange);
        out += fmt::format(" {:<24} {:>12.2f} {:>12.2f}\n", "CPU time, s", b.cpuSeconds, c.cpuSeconds);
        out += fmt::format(" {:<24} {:>12g} {:>12g}\n", "Sample interval, ms", b.intervalMs, c.intervalMs);
        out += fmt::format(" {:<24} {:>12.1f} {:>12.1f}\n", "Achieved rate, Hz", b.achievedRate, c.achievedRate);
        out += fmt::format(" {:<24} {:>12.6f} {:>12.6f}\n", "Time a sample, s", b.secondsPerSample, c.secondsPerSample);
        out += fmt::format(" {:<24} {:>12.3f} {:>12.3f}   {}\n", "Program time, s", b.sampledSeconds, c.sampledSeconds,
            programTimeChange(d));
        out += fmt::format(
            "\nProgram time is the in-range count x the time a sample stands for. In the tables, Base % and "
            "New % are a row's share of its\nprofile's in-range count and Chg pp the change of that share "
            "in percentage points: when one row's time grows, every\nother row's share falls. Base s "
            "and New s are its hits x the time a sample stands for. z(%) is the two-proportion\nz-test "
            "of the shares, z(s) the Poisson z-test of the times; p(%) and p(s) their p after Holm's "
            "correction for the rows\ncompared (family-wise error {:g}%). Moved says which changed: "
            "\"faster\" or \"slower\" (time and share: the row changed by\nitself), \"faster, less than "
            "the rest\" (its time fell, its share rose), \"..., like the rest\" (its time only: the whole\n"
            "program moved), \"larger share only\" / \"smaller share only\" (another row's time moved it).\n",
            d.alpha * 100);
    }

    const char* kindTitle(ModuleKind kind) { return kind == ModuleKind::Function ? "FUNCTION" : "MODULE"; }

    std::string presenceMark(DiffPresence p)
    {
        if (p == DiffPresence::OnlyChanged)
            return " (no hits in base)";
        if (p == DiffPresence::OnlyBase)
            return " (no hits in new)";
        return "";
    }

    void table(std::string& out, const DiffTable& t)
    {
        out += fmt::format(
            "\nPPE - COMPARISON BY {}, CHANGED ROWS FIRST, THEN DECREASING CHANGE OF TIME.\n", kindTitle(t.kind));
        out += fmt::format(" {} rows compared: time changed in {}, share in {}, both in the same direction in {}\n\n",
            t.compared, t.timeChanged, t.shareChanged, t.significant);
        size_t width = 11;
        for (const DiffRow& r : t.rows)
            width = std::max(width, std::min(r.name.size(), kMaxNameWidth));
        const char* name = t.kind == ModuleKind::Function ? "Function name" : "Module name";
        out += fmt::format(
            "{:>4}   {:<{}}  {:>6}  {:>6}  {:>7}  {:>6}  {:>7}  {:>8}  {:>8}  {:>8} +- {:>6}  {:>6}  {:>7}  {}\n", "#",
            name, width, "Base %", "New %", "Chg pp", "z(%)", "p(%)", "Base s", "New s", "Chg s", "error", "z(s)",
            "p(s)", "Moved");
        size_t rank = 0;
        for (const DiffRow& r : t.rows) {
            out += fmt::format(
                "{:>4} - {:<{}}  {:>6.2f}  {:>6.2f}  {:>+7.2f}  {:>6.2f}  {:>7.2g}  {:>8.3f}  {:>8.3f}  {:>+8.3f} +- "
                "{:>6.3f}  {:>6.2f}  {:>7.2g}  {}{}\n",
                ++rank, fitName(r.name, width), width, r.base.percent, r.changed.percent, r.deltaPercent, r.share.z,
                r.shareP, r.baseSeconds, r.changedSeconds, r.deltaSeconds, r.secondsError, r.time.z, r.timeP,
                r.movement, presenceMark(r.presence));
        }
    }

} // namespace

std::string renderTextDiff(const DiffReport& diff)
{
    std::string out;
    header(out, diff);
    for (const DiffTable& t : diff.tables)
        table(out, t);
    return out;
}

} // namespace ppe::formatter
