// The HTML page of `ppeout --diff`: Report::diff as a section before the new profile's own tables:
// both sides' header numbers, the program's change of time, and each comparison table (sortable,
// the rows that changed by themselves marked), with the same columns and words as the text.
#include "html_common.h"

namespace ppe::formatter::html {

namespace {

    std::string sideRow(const char* label, const DiffSide& s)
    {
        return fmt::format("<tr><th>{}</th><td class=\"name\"><code>{}</code></td><td><code>{}</code></td>{}{}{}{}{}"
                           "</tr>\n",
            label, esc(s.path), esc(s.buildId.empty() ? s.image : s.image + " (" + s.buildId + ")"),
            numberCell(double(s.inRange), std::to_string(s.inRange)),
            numberCell(s.cpuSeconds, fmt::format("{:.2f}", s.cpuSeconds)),
            numberCell(s.achievedRate, fmt::format("{:.1f}", s.achievedRate)),
            numberCell(s.secondsPerSample, fmt::format("{:.6f}", s.secondsPerSample)),
            numberCell(s.sampledSeconds, fmt::format("{:.3f}", s.sampledSeconds)));
    }

    // The program time's change: a verdict between two builds only (text_diff.cc says why).
    std::string programTime(const DiffReport& d)
    {
        const std::string change
            = fmt::format("Program time changed by {:+.3f} s ({:+.2f}%)", d.deltaSeconds, d.deltaSecondsPercent);
        if (d.sameBuild)
            return change
                + ": two runs of one build, run-to-run variation of the machine, which the binomial "
                  "errors do not cover.";
        return fmt::format("{}, z {:.2f}, p {:.2g}: {}.", change, d.time.z, d.time.p,
            d.timeSignificant ? "significant" : "not significant");
    }

    void sides(std::string& out, const DiffReport& d)
    {
        out += "<div class=\"scroll\"><table class=\"diff-sides\"><thead><tr><th></th><th>Profile</th><th>Image</th>"
               "<th class=\"num\">In range</th><th class=\"num\">CPU s</th><th class=\"num\">Rate, Hz</th>"
               "<th class=\"num\">Time a sample, s</th><th class=\"num\">Program time, s</th></tr></thead><tbody>\n";
        out += sideRow("Base", d.base) + sideRow("New", d.changed);
        out += "</tbody></table></div>\n<p class=\"note\">" + esc(programTime(d)) + "</p>\n";
    }

    std::string presenceMark(DiffPresence p)
    {
        if (p == DiffPresence::OnlyChanged)
            return " (no hits in base)";
        return p == DiffPresence::OnlyBase ? " (no hits in new)" : "";
    }

    void row(std::string& out, const DiffRow& r)
    {
        out += fmt::format(
            "<tr{}><td class=\"name\">{}</td>", r.significant ? " class=\"significant\"" : "", esc(r.name));
        out += numberCell(r.base.percent, fmt::format("{:.2f}", r.base.percent))
            + numberCell(r.changed.percent, fmt::format("{:.2f}", r.changed.percent))
            + numberCell(r.deltaPercent, fmt::format("{:+.2f}", r.deltaPercent))
            + numberCell(r.share.z, fmt::format("{:.2f}", r.share.z))
            + numberCell(r.shareP, fmt::format("{:.2g}", r.shareP))
            + numberCell(r.baseSeconds, fmt::format("{:.3f}", r.baseSeconds))
            + numberCell(r.changedSeconds, fmt::format("{:.3f}", r.changedSeconds))
            + numberCell(r.deltaSeconds, fmt::format("{:+.3f}", r.deltaSeconds))
            + numberCell(r.secondsError, fmt::format("{:.3f}", r.secondsError))
            + numberCell(r.time.z, fmt::format("{:.2f}", r.time.z))
            + numberCell(r.timeP, fmt::format("{:.2g}", r.timeP));
        out += "<td class=\"moved\">" + esc(r.movement + presenceMark(r.presence)) + "</td></tr>\n";
    }

    void table(std::string& out, const DiffTable& t)
    {
        const bool functions = t.kind == ModuleKind::Function;
        out += fmt::format("<h3>By {}</h3>\n<p class=\"note\">{} rows compared: time changed in {}, share in {}, both "
                           "in the same direction in {}.</p>\n",
            moduleKindName(t.kind), t.compared, t.timeChanged, t.shareChanged, t.significant);
        out += fmt::format(
            "<div class=\"scroll\"><table class=\"sortable diff\" data-kind=\"{}\"><thead><tr><th>{}</th>"
            "<th class=\"num\">Base %</th><th class=\"num\">New %</th><th class=\"num\">Chg pp</th>"
            "<th class=\"num\">z(%)</th><th class=\"num\">p(%)</th><th class=\"num\">Base s</th>"
            "<th class=\"num\">New s</th><th class=\"num\">Chg s</th><th class=\"num\">&plusmn; error</th>"
            "<th class=\"num\">z(s)</th><th class=\"num\">p(s)</th><th>Moved</th></tr></thead><tbody>\n",
            moduleKindName(t.kind), functions ? "Function" : "Module");
        for (const DiffRow& r : t.rows)
            row(out, r);
        out += "</tbody></table></div>\n";
    }

} // namespace

void diffSection(std::string& out, const Report& r)
{
    if (!r.diff)
        return;
    const DiffReport& d = *r.diff;
    out += fmt::format("<section id=\"diff\"><h2>Comparison with {}</h2>\n", esc(d.base.path));
    sides(out, d);
    out += fmt::format("<p class=\"note\">Base % and New % are a row's share of its profile's in-range samples, "
                       "Base s and New s its samples times the time one stands for. z(%) is the two-proportion "
                       "z-test of the shares, z(s) the Poisson z-test of the times, p(%) and p(s) their p after "
                       "Holm's correction for the rows compared (family-wise error {:g}%). Moved says which "
                       "changed; rows whose time and share changed in the same direction are marked.</p>\n",
        d.alpha * 100);
    for (const std::string& w : d.warnings)
        out += "<p class=\"note warning\">" + esc(w) + "</p>\n";
    for (const DiffTable& t : d.tables)
        table(out, t);
    out += "</section>\n";
}

} // namespace ppe::formatter::html
