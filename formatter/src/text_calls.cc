// The text report's call paths (issue 39): inclusive and self time of the busiest functions, each
// with the callers its time came through (<) and the callees it went to (>).
#include "text_common.h"

#include <fmt/format.h>

namespace ppe::formatter {

namespace {

    constexpr size_t kEdgesShown = 5;

    void edgeLines(std::string& out, const std::vector<CallEdge>& edges, const char* mark, bool all)
    {
        const size_t shown = all ? edges.size() : kEdgesShown;
        for (size_t i = 0; i < edges.size() && i < shown; ++i)
            out += fmt::format(
                "{:>42}  {} {:>6.2f}  {}\n", "", mark, edges[i].percent, fitName(edges[i].name, kMaxNameWidth));
        if (edges.size() > shown)
            out += fmt::format("{:>42}  {} and {} more\n", "", mark, edges.size() - shown);
    }

    std::string shortPathsLine(const CallPathsReport& c)
    {
        if (c.shortPaths.empty())
            return " Every path was followed to the program's start (or a thread's).\n";
        std::string line = " Paths that stopped short of the program's start:";
        for (const CallEdge& e : c.shortPaths)
            line += fmt::format(" {} {:.2f}%;", e.name, e.percent);
        line.back() = '\n';
        return line;
    }

} // namespace

void callPathsText(std::string& out, const Report& report)
{
    if (!report.calls)
        return;
    const CallPathsReport& c = *report.calls;
    out += "\nPPE - CALL PATHS: TIME IN EACH FUNCTION WITH ITS CALLEES (INCLUSIVE), % OF THE SAMPLES WITH A PATH.\n\n";
    out += fmt::format(" {} samples with a call path, in {} calling contexts; {}\n", c.samples, c.nodes,
        c.cut ? fmt::format("{} cut short for room in the collector's tree (PPE_CALL_NODES)", c.cut)
              : std::string("none cut for room"));
    out += shortPathsLine(c);
    out += fmt::format("\n{:>4}  {:>7} +- {:>5}  {:>7} +- {:>5}   {}\n", "#", "Incl %", "error", "Self %", "error",
        "Function; < the callers its time came through, > the callees it went to (% of its inclusive time)");
    size_t rank = 0;
    for (const CallFunctionRow& f : c.functions) {
        out += fmt::format("{:>4}  {:>7.2f} +- {:>5.2f}  {:>7.2f} +- {:>5.2f}   {}\n", ++rank, f.inclusivePercent,
            f.inclusiveError, f.selfPercent, f.selfError, fitName(f.name, kMaxNameWidth));
        if (f.showCallers)
            edgeLines(out, f.callers, "<", f.allEdges);
        if (f.showCallees)
            edgeLines(out, f.callees, ">", f.allEdges);
    }
    if (c.moreFunctions)
        out += fmt::format("      and {} more functions\n", c.moreFunctions);
}

} // namespace ppe::formatter
