// The HTML report's tables beside the modules: shared objects, blocked time, threads, the ranks of
// a merge.
#include "html_common.h"
#include "ppe/formatter/thread_report.h"

#include <map>

namespace ppe::formatter::html {

namespace {

    std::string shareCells(double percent, double error, double hits)
    {
        return numberCell(percent, fmt::format("{:.2f}", percent)) + numberCell(error, fmt::format("{:.2f}", error))
            + numberCell(hits, hitsText(hits));
    }

    // Where the object's analysis (its section "o3", "" when it has none) shows each module's text.
    struct ObjectLinks {
        std::string section;
        std::map<std::string, std::string> text; // module name -> the id of its program text
    };

    ObjectLinks objectLinks(const Report& r, const ObjectRow& o)
    {
        ObjectLinks links;
        for (size_t k = 0; k < r.objectAnalyses.size(); ++k) {
            const ObjectAnalysis& a = r.objectAnalyses[k];
            if (a.path != o.path)
                continue;
            links.section = fmt::format("o{}", k);
            for (size_t i = 0; i < a.lines.size(); ++i)
                links.text.emplace(a.lines[i].name, moduleId(links.section, i));
        }
        return links;
    }

    std::string linked(const std::string& name, const std::string& id)
    {
        return id.empty() ? esc(name) : fmt::format("<a href=\"#{}\">{}</a>", id, esc(name));
    }

    // The rows under an object's own: its busiest functions (linked to their program text in the
    // object's analysis), its busiest addresses no function owns, and what was left out.
    void objectChildren(std::string& out, const ObjectRow& o, const ObjectLinks& links)
    {
        for (const FunctionRow& f : o.functions) {
            const auto text = links.text.find(f.name);
            out += "<tr class=\"child\"><td class=\"name\">"
                + linked(f.name, text == links.text.end() ? "" : text->second) + "</td>"
                + shareCells(f.percent, f.error, f.hits) + "<td></td></tr>\n";
        }
        for (const AddressRow& a : o.hottest)
            out += fmt::format("<tr class=\"child\"><td class=\"name\">{}<code>0x{:x}</code> (no function)</td>{}"
                               "<td></td></tr>\n",
                a.mapped ? "" : "offset ", a.address, shareCells(a.percent, a.error, a.hits));
        if (o.hottest.empty() && o.withoutFunction.hits >= 0.5)
            out += "<tr class=\"child\"><td class=\"name\">(no function)</td>"
                + shareCells(o.withoutFunction.percent, o.withoutFunction.error, o.withoutFunction.hits)
                + "<td></td></tr>\n";
        if (o.moreFunctions)
            out += fmt::format("<tr class=\"child more\"><td class=\"name\">({} more functions)</td><td></td><td></td>"
                               "{}<td></td></tr>\n",
                o.moreFunctions, numberCell(o.moreFunctionsHits, hitsText(o.moreFunctionsHits)));
        if (o.moreAddresses)
            out += fmt::format(
                "<tr class=\"child more\"><td colspan=\"5\">{} more addresses without a function</td></tr>\n",
                o.moreAddresses);
        if (!o.note.empty())
            out += "<tr class=\"child more\"><td colspan=\"5\">functions unknown: " + esc(o.note) + "</td></tr>\n";
    }

} // namespace

void objectsSection(std::string& out, const Report& r)
{
    if (r.objects.empty())
        return;
    out += "<section id=\"objects\"><h2>Shared objects, % of all samples</h2>\n";
    out += "<div class=\"scroll\"><table class=\"objects\"><thead><tr><th>Object, function</th>"
           "<th class=\"num\">Time %</th><th class=\"num\">&#177; error</th><th class=\"num\">Hits</th>"
           "<th>Path</th></tr></thead>\n";
    for (const ObjectRow& o : r.objects) {
        const ObjectLinks links = objectLinks(r, o);
        out += "<tbody><tr class=\"object\"><td class=\"name\">" + linked(o.name, links.section) + "</td>"
            + shareCells(o.percent, o.error, o.hits) + "<td><code>" + esc(o.path) + "</code></td></tr>\n";
        objectChildren(out, o, links);
        out += "</tbody>\n";
    }
    out += "</table></div></section>\n";
}

void blockedSection(std::string& out, const Report& r)
{
    if (!r.blocked)
        return;
    const BlockedTime& b = *r.blocked;
    out += "<section id=\"blocked\"><h2>Blocked time by place, % of all thread time</h2>\n";
    out += fmt::format("<p class=\"note\">Threads ran {:.2f} s (sampled) and waited {:.2f} s, found by {} scans of "
                       "/proc/self/task every {:.1f} ms on average, costing {:.2f} s of CPU.</p>\n",
        b.runningSeconds, b.blockedSeconds, b.scans, b.scanPeriod * 1e3, b.scanCost);
    out += "<p class=\"note\">" + esc(blockedGroupsLine(b, " ")) + ".</p>\n";
    if (b.rows.empty())
        return void(out += "</section>\n");
    out += "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>Thread</th><th>System call</th>"
           "<th class=\"num\">Seconds</th><th class=\"num\">&#177; error</th><th class=\"num\">Time %</th>"
           "<th class=\"num\">Scans</th><th>Waiting in</th><th>Called from</th></tr></thead><tbody>\n";
    for (const BlockedRow& row : b.rows) {
        const std::string thread
            = row.tid ? fmt::format("{} ({})", row.tid, row.thread.empty() ? "?" : row.thread) : "-";
        out += "<tr><td>" + esc(thread) + "</td><td class=\"name\">" + esc(row.call) + "</td>"
            + numberCell(row.seconds, fmt::format("{:.3f}", row.seconds))
            + numberCell(row.error, fmt::format("{:.3f}", row.error))
            + numberCell(row.percent, fmt::format("{:.2f}", row.percent))
            + numberCell(double(row.observations), std::to_string(row.observations)) + "<td>" + esc(row.site)
            + "</td><td>" + esc(row.caller.empty() ? "-" : row.caller) + "</td></tr>\n";
    }
    out += "</tbody></table></div></section>\n";
}

void threadsSection(std::string& out, const Report& r)
{
    if (r.threads.size() < 2 && !r.moreThreads)
        return;
    const bool blocked = r.blocked.has_value();
    out += "<section id=\"threads\"><h2>Threads, % of all samples</h2>\n";
    out += "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"num\">Thread</th><th>Name</th>"
           "<th class=\"num\">Samples</th><th class=\"num\">All %</th><th class=\"num\">CPU s</th>"
           "<th class=\"num\">Rate, Hz</th>";
    out += blocked ? "<th class=\"num\">Waited s</th>" : "";
    out += "</tr></thead><tbody>\n";
    for (const ThreadRow& t : r.threads) {
        out += "<tr>" + numberCell(double(t.tid), t.tid ? std::to_string(t.tid) : "(others)") + "<td class=\"name\">"
            + esc(t.name.empty() ? "?" : t.name) + "</td>" + numberCell(double(t.samples), std::to_string(t.samples))
            + numberCell(t.percent, fmt::format("{:.2f}", t.percent))
            + numberCell(t.cpuSeconds, t.cpuSeconds > 0 ? fmt::format("{:.2f}", t.cpuSeconds) : "-")
            + numberCell(t.rate, t.rate > 0 ? fmt::format("{:.1f}", t.rate) : "-");
        out += blocked ? numberCell(t.blockedSeconds, fmt::format("{:.2f}", t.blockedSeconds)) : "";
        out += "</tr>\n";
    }
    out += "</tbody></table></div>\n";
    if (r.moreThreads)
        out += fmt::format("<p class=\"note\">{} more threads with fewer samples.</p>\n", r.moreThreads);
    out += "</section>\n";
}

namespace {

    void imbalanceModules(std::string& out, const Imbalance& i)
    {
        out += "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th>Module</th><th class=\"num\">Hits</th>"
               "<th class=\"num\">Min %</th><th class=\"num\">Mean %</th><th class=\"num\">Max %</th>"
               "<th class=\"num\">Max rank</th><th class=\"num\">CV</th></tr></thead><tbody>\n";
        for (const ModuleImbalance& m : i.modules)
            out += "<tr><td class=\"name\">" + esc(m.name) + "</td>" + numberCell(m.hits, hitsText(m.hits))
                + numberCell(m.minPercent, fmt::format("{:.2f}", m.minPercent))
                + numberCell(m.meanPercent, fmt::format("{:.2f}", m.meanPercent))
                + numberCell(m.maxPercent, fmt::format("{:.2f}", m.maxPercent))
                + numberCell(double(m.maxRank), std::to_string(m.maxRank))
                + numberCell(m.variation, fmt::format("{:.3f}", m.variation)) + "</tr>\n";
        out += "</tbody></table></div>\n";
    }

    void rankRows(std::string& out, const Imbalance& i)
    {
        out += "<div class=\"scroll\"><table class=\"sortable\"><thead><tr><th class=\"num\">Rank</th>"
               "<th class=\"num\">Samples</th><th class=\"num\">All %</th><th class=\"num\">Rate, Hz</th>"
               "<th class=\"num\">CPU s</th><th class=\"num\">User %</th><th>Ended</th><th>File</th></tr></thead>"
               "<tbody>\n";
        for (size_t k = 0; k < i.rows.size(); ++k) {
            const RankRow& r = i.rows[k];
            if (i.hiddenRanks && k == i.hiddenAfter)
                out += fmt::format("<tr class=\"more\"><td colspan=\"8\">{} ranks between</td></tr>\n", i.hiddenRanks);
            out += "<tr>" + numberCell(double(r.rank), std::to_string(r.rank))
                + numberCell(double(r.samples), std::to_string(r.samples))
                + numberCell(r.percent, fmt::format("{:.2f}", r.percent))
                + numberCell(r.achievedRate, fmt::format("{:.1f}", r.achievedRate))
                + numberCell(r.cpuSeconds, fmt::format("{:.2f}", r.cpuSeconds))
                + numberCell(r.userPercent, fmt::format("{:.1f}", r.userPercent)) + "<td>" + esc(r.endReason)
                + "</td><td class=\"name\">" + esc(r.file) + "</td></tr>\n";
        }
        out += "</tbody></table></div>\n";
    }

} // namespace

void imbalanceSection(std::string& out, const Report& r)
{
    if (!r.imbalance)
        return;
    const Imbalance& i = *r.imbalance;
    out += fmt::format("<section id=\"imbalance\"><h2>Per-rank imbalance, {} profiles merged</h2>\n", i.ranks);
    out += "<p class=\"note\">Each top module's share of every rank's in-range hits: the smallest, mean and largest, "
           "the rank holding the largest and the coefficient of variation (0: every rank alike).";
    out += i.ranksFromOrder ? " Some profiles had no rank: ranks are the files' order.</p>\n" : "</p>\n";
    imbalanceModules(out, i);
    out += fmt::format("<p class=\"note\">Samples per rank: mean {:.0f}, coefficient of variation {:.3f}.</p>\n",
        i.meanSamples, i.samplesVariation);
    rankRows(out, i);
    out += "</section>\n";
}

} // namespace ppe::formatter::html
