#include "ppe/formatter/html_report.h"

#include "ppe/core/civil_time.h"
#include "ppe/formatter/shell_quote.h"

#include "html_common.h"
#include "sampled_time.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace ppe::formatter {

namespace {

    // The length of the UTF-8 sequence at text[i], or 0 when it is not one (overlong forms,
    // surrogates and code points past U+10FFFF included).
    size_t utf8Length(std::string_view text, size_t i)
    {
        const auto byte = [&](size_t k) { return i + k < text.size() ? (unsigned char)text[i + k] : 0u; };
        const auto tail = [&](size_t k) { return (byte(k) & 0xC0) == 0x80; };
        const unsigned c = byte(0), next = byte(1);
        if (c >= 0xC2 && c <= 0xDF)
            return tail(1) ? 2 : 0;
        if (c >= 0xE0 && c <= 0xEF) {
            const bool ok = (c == 0xE0 ? next >= 0xA0 : true) && (c == 0xED ? next <= 0x9F : true);
            return ok && tail(1) && tail(2) ? 3 : 0;
        }
        if (c >= 0xF0 && c <= 0xF4) {
            const bool ok = (c == 0xF0 ? next >= 0x90 : true) && (c == 0xF4 ? next <= 0x8F : true);
            return ok && tail(1) && tail(2) && tail(3) ? 4 : 0;
        }
        return 0;
    }

    const char* entityOf(char c)
    {
        switch (c) {
        case '&':
            return "&amp;";
        case '<':
            return "&lt;";
        case '>':
            return "&gt;";
        case '"':
            return "&quot;";
        case '\'':
            return "&#39;";
        default:
            return nullptr;
        }
    }

} // namespace

std::string htmlEscape(std::string_view text)
{
    static constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = (unsigned char)text[i];
        if (c < 0x80) {
            if (const char* entity = entityOf(char(c)))
                out += entity;
            else if (c < 0x20 && c != '\t')
                out += kReplacement;
            else if (c == 0x7F)
                out += kReplacement;
            else
                out += char(c);
            ++i;
            continue;
        }
        const size_t n = utf8Length(text, i);
        out += n ? text.substr(i, n) : kReplacement;
        i += n ? n : 1;
    }
    return out;
}

namespace html {

    namespace {

        std::string isoDate(int64_t seconds)
        {
            const CivilTime t = civilFromUnix(seconds);
            return fmt::format("{}-{:02}-{:02} {:02}:{:02} UTC", t.year, t.month, t.day, t.hour, t.minute);
        }

        std::string baseNameOf(const std::string& path)
        {
            const size_t slash = path.rfind('/');
            return slash == std::string::npos ? path : path.substr(slash + 1);
        }

        void fact(std::string& out, const std::string& name, const std::string& valueHtml)
        {
            if (!valueHtml.empty())
                out += fmt::format("<dt>{}</dt><dd>{}</dd>\n", name, valueHtml);
        }

        void card(std::string& out, const std::string& name, const std::string& value, const std::string& note)
        {
            out += fmt::format("<div class=\"card\"><div class=\"k\">{}</div><div class=\"v\">{}</div>"
                               "<div class=\"n\">{}</div></div>\n",
                name, value, note);
        }

        void cards(std::string& out, const Report& r)
        {
            const Profile& p = r.profile;
            const Totals& t = r.totals;
            out += "<div class=\"cards\">\n";
            card(out, "Samples", fmt::format("{}", p.total),
                fmt::format("{:.1f}% in the program, {:.1f}% in shared objects", t.programPercent, t.librariesPercent));
            card(out, "In range", fmt::format("{}", p.inRange()), "the monitored code: Time % is of these");
            card(out, "CPU time", fmt::format("{:.2f} s", t.cpuSeconds),
                fmt::format("user {:.1f}%, system {:.1f}%", t.cpuUserPercent, t.cpuSystemPercent));
            card(out, "Interval", fmt::format("{:g} ms", t.intervalMs),
                fmt::format("{} time, {}", p.mode == SampleMode::Cpu ? "CPU" : "real", esc(p.mechanism)));
            if (!r.modules.empty())
                card(out, "Busiest module", esc(r.modules.front().name),
                    fmt::format("{:.2f}% &plusmn; {:.2f}", r.modules.front().percent, r.modules.front().error));
            out += "</div>\n";
        }

        void summary(std::string& out, const Report& r)
        {
            const Profile& p = r.profile;
            const Totals& t = r.totals;
            out += fmt::format("<header id=\"summary\">\n<h1>ppe profile of <span class=\"image\">{}</span></h1>\n",
                esc(baseNameOf(p.image)));
            out += fmt::format("<p class=\"sub\">{} &middot; {} &middot; {}</p>\n", esc(p.host),
                esc(p.cpu.empty() ? p.arch : p.cpu), isoDate(p.startTime));
            cards(out, r);
            out += "<dl class=\"facts\">\n";
            fact(out, "Image", "<code>" + esc(p.image) + "</code>");
            fact(out, "Build id", p.buildId.empty() ? "" : "<code>" + esc(p.buildId) + "</code>");
            fact(out, "Command line", "<code>" + esc(shellCommand(p.command)) + "</code>");
            fact(out, "Address range",
                fmt::format(
                    "<code>{:X} &ndash; {:X}</code> (hex), {} bytes", p.rangeStart, t.lastAddress, t.rangeBytes));
            fact(out, "Sampling",
                fmt::format("{}: requested {:.1f} Hz, achieved {:.1f} Hz{}", esc(p.mechanism), p.requestedRate,
                    rateOverUserTimeApart(t) ? t.sampledRate : p.achievedRate,
                    rateOverUserTimeApart(t)
                        ? fmt::format(" over the {:.2f} s of user time it samples ({:.1f} Hz over all CPU time)",
                            t.sampledSeconds, p.achievedRate)
                        : ""));
            fact(out, "Counts",
                fmt::format("total {}, in range {}, system {}, other {}, overflow {}, underflow {}", p.total,
                    p.inRange(), t.system, t.other, t.overflow, t.underflow));
            fact(out, "Bins", fmt::format("{} of {} bytes, the fullest holds {}", p.binCount, p.binWidth, p.maxBin));
            if (p.status != ProfileStatus::Complete)
                fact(out, "Status", fmt::format("{} (data up to {})", esc(statusName(p.status)), isoDate(p.endTime)));
            if (!p.remoteServer.empty())
                fact(out, "Remote target", esc(fmt::format("{} through {}", p.remoteTarget, p.remoteServer)));
            out += "</dl>\n";
            if (p.binWidth > p.granularity)
                out += fmt::format("<p class=\"note\">Bins are {} bytes, wider than one instruction: a bin that "
                                   "straddles two modules, lines or instructions is split in proportion to the "
                                   "bytes each owns.</p>\n",
                    p.binWidth);
            out += "</header>\n";
        }

        void warnings(std::string& out, const Report& r)
        {
            if (r.warnings.empty())
                return;
            out += "<section id=\"warnings\" class=\"warnings\"><h2>Warnings</h2><ul>\n";
            for (const std::string& w : r.warnings)
                out += "<li>" + esc(w) + "</li>\n";
            out += "</ul></section>\n";
        }

        // An axis end at or above `value`: 1, 2 or 5 times a power of ten, at most 100.
        double axisEnd(double value)
        {
            double step = 1;
            while (step < 100) {
                for (double f : { 1.0, 2.0, 5.0 }) {
                    if (f * step >= value)
                        return std::min(100.0, f * step);
                }
                step *= 10;
            }
            return 100;
        }

        using Analysed = std::map<size_t, size_t>; // ModuleRow::module -> index in the lines

        Analysed analysedModules(const std::vector<ModuleLines>& lines)
        {
            Analysed out;
            for (size_t i = 0; i < lines.size(); ++i)
                out.emplace(lines[i].module, i);
            return out;
        }

        // One bar of the chart: the share, its error bar, the label and the value.
        void chartBar(std::string& out, const ModuleRow& row, size_t i, double end, const std::string& link)
        {
            constexpr double kLeft = 230, kWidth = 560, kRow = 24;
            const double y = 28 + double(i) * kRow;
            const double x = kLeft + kWidth * row.percent / end;
            const double lo = kLeft + kWidth * std::max(0.0, row.percent - row.error) / end;
            const double hi = kLeft + kWidth * std::min(end, row.percent + row.error) / end;
            const std::string name = row.name.size() > 32
                ? row.name.substr(0, 14) + "…" + row.name.substr(row.name.size() - 16)
                : row.name;
            out += link.empty() ? "<g>" : "<a href=\"#" + link + "\">";
            out += fmt::format("<title>{}: {:.2f}% &#177; {:.2f}</title>", esc(row.name), row.percent, row.error);
            out += fmt::format("<text class=\"label\" x=\"{}\" y=\"{:.0f}\">{}</text>", kLeft - 8, y + 16, esc(name));
            out += fmt::format("<rect class=\"bar\" x=\"{}\" y=\"{:.0f}\" width=\"{:.1f}\" height=\"16\" rx=\"2\"/>",
                kLeft, y + 4, x - kLeft);
            out += fmt::format("<path class=\"err\" d=\"M{0:.1f} {1:.0f}H{2:.1f}M{0:.1f} {3:.0f}V{4:.0f}M{2:.1f} "
                               "{3:.0f}V{4:.0f}\"/>",
                lo, y + 12, hi, y + 7, y + 17);
            out += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{:.0f}\">{:.2f}% &#177; {:.2f}</text>",
                std::max(x, hi) + 6, y + 16, row.percent, row.error);
            out += link.empty() ? "</g>\n" : "</a>\n";
        }

        void moduleChart(std::string& out, const std::vector<ModuleRow>& rows, const Analysed& analysed,
            const std::string& prefix, unsigned maxRows)
        {
            const size_t shown = std::min<size_t>(rows.size(), maxRows);
            if (shown == 0)
                return;
            double top = 0;
            for (size_t i = 0; i < shown; ++i)
                top = std::max(top, rows[i].percent + rows[i].error);
            const double end = axisEnd(top);
            const double height = 28 + double(shown) * 24 + 8;
            out += fmt::format("<figure class=\"chart\"><svg viewBox=\"0 0 900 {0:.0f}\" role=\"img\" "
                               "aria-label=\"Time % per module with its error\">\n",
                height);
            for (int k = 0; k <= 4; ++k) {
                const double x = 230 + 560.0 * k / 4;
                out += fmt::format("<path class=\"grid\" d=\"M{0:.1f} 22V{1:.0f}\"/><text class=\"tick\" x=\"{0:.1f}\" "
                                   "y=\"16\">{2:g}%</text>\n",
                    x, height - 6, end * k / 4);
            }
            for (size_t i = 0; i < shown; ++i) {
                const auto found = analysed.find(rows[i].module);
                chartBar(out, rows[i], i, end, found == analysed.end() ? "" : moduleId(prefix, found->second));
            }
            out += "</svg>\n";
            out += fmt::format("<figcaption>Time % of the {} busiest modules{}, with &#177; one standard error. "
                               "Click a bar for its program text.</figcaption></figure>\n",
                shown, rows.size() > shown ? fmt::format(" (of {})", rows.size()) : "");
        }

        void moduleTable(std::string& out, const std::vector<ModuleRow>& rows, const Share& none,
            const Analysed& analysed, const std::string& prefix, bool allPercent)
        {
            out += "<div class=\"scroll\"><table class=\"sortable modules\"><thead><tr><th class=\"num\">#</th>"
                   "<th>Module</th><th class=\"num\">Time %</th><th class=\"num\">&#177; error</th>";
            out += allPercent ? "<th class=\"num\">All %</th>" : "";
            out += "<th class=\"num\">Acc %</th><th class=\"num\">Hits</th><th class=\"num\">Address</th>"
                   "<th class=\"num\">Size</th></tr></thead><tbody>\n";
            size_t rank = 0;
            for (const ModuleRow& row : rows) {
                const auto found = analysed.find(row.module);
                const std::string name = found == analysed.end()
                    ? esc(row.name)
                    : fmt::format("<a href=\"#{}\">{}</a>", moduleId(prefix, found->second), esc(row.name));
                ++rank;
                out += "<tr>" + numberCell(double(rank), std::to_string(rank)) + "<td class=\"name\">" + name + "</td>";
                out += numberCell(row.percent, fmt::format("{:.2f}", row.percent));
                out += numberCell(row.error, fmt::format("{:.2f}{}", row.error, row.splitHits > 0 ? "*" : ""));
                out += allPercent ? numberCell(row.percentOfAll, fmt::format("{:.2f}", row.percentOfAll)) : "";
                out += numberCell(row.accumulated, fmt::format("{:.2f}", row.accumulated));
                out += numberCell(row.hits, hitsText(row.hits));
                out += numberCell(
                    double(row.address), fmt::format("<code>{:X}</code>{}", row.address, row.ranges > 1 ? "+" : ""));
                out += numberCell(double(row.size), std::to_string(row.size)) + "</tr>\n";
            }
            out += "</tbody>";
            if (none.hits > 0.5)
                out += fmt::format("<tfoot><tr><td></td><td class=\"name\">(no module)</td><td class=\"num\">{:.2f}"
                                   "</td><td class=\"num\">{:.2f}</td>{}<td></td><td class=\"num\">{:.0f}</td>"
                                   "<td></td><td></td></tr></tfoot>",
                    none.percent, none.error, allPercent ? "<td></td>" : "", none.hits);
            out += "</table></div>\n";
        }

        void modulesSection(std::string& out, const Report& r, const HtmlOptions& options)
        {
            out += fmt::format(
                "<section id=\"modules\"><h2>Modules in decreasing {} time</h2>\n", r.cpuTime ? "CPU" : "real");
            const Analysed analysed = analysedModules(r.lines);
            moduleChart(out, r.modules, analysed, "", options.chartRows);
            moduleTable(out, r.modules, r.unattributed, analysed, "", true);
            out += "<p class=\"note\">Time % is of the in-range samples, All % of all samples. Click a column "
                   "heading to sort; a module name leads to its program text.";
            if (std::any_of(r.modules.begin(), r.modules.end(), [](const ModuleRow& m) { return m.splitHits > 0; }))
                out += " * some hits came from bins split between modules by bytes: the error includes that.";
            if (std::any_of(r.modules.begin(), r.modules.end(), [](const ModuleRow& m) { return m.ranges > 1; }))
                out += " + code in several address ranges: Address is the lowest, Size their sum.";
            out += "</p></section>\n";
        }

    } // namespace

    void objectsSection(std::string& out, const Report& r);
    void threadsSection(std::string& out, const Report& r);
    void blockedSection(std::string& out, const Report& r);
    void imbalanceSection(std::string& out, const Report& r);
    void diffSection(std::string& out, const Report& r);

    namespace {

        void navigation(std::string& out, const Report& r)
        {
            out += "<nav><span class=\"brand\">ppe</span><a href=\"#summary\">Summary</a>";
            if (r.diff)
                out += "<a href=\"#diff\">Comparison</a>";
            out += "<a href=\"#modules\">Modules</a>";
            if (!r.objects.empty())
                out += "<a href=\"#objects\">Shared objects</a>";
            if (r.blocked)
                out += "<a href=\"#blocked\">Blocked time</a>";
            if (r.threads.size() >= 2 || r.moreThreads)
                out += "<a href=\"#threads\">Threads</a>";
            if (r.imbalance)
                out += "<a href=\"#imbalance\">Ranks</a>";
            for (size_t i = 0; i < r.lines.size() && i < 6; ++i)
                out += fmt::format("<a class=\"code\" href=\"#{}\">{}</a>", moduleId("", i), esc(r.lines[i].name));
            out += "<button type=\"button\" id=\"asm-toggle\" hidden>Hide instructions</button></nav>\n";
        }

        // A shared object analysed as the executable is: its own module table and program text.
        void objectAnalysis(std::string& out, const ObjectAnalysis& a, size_t k, bool cpuTime)
        {
            const std::string prefix = fmt::format("o{}", k);
            out += fmt::format("<section id=\"{}\"><h2>Shared object {} in decreasing {} time</h2>\n", prefix,
                esc(a.name), cpuTime ? "CPU" : "real");
            out += fmt::format("<p class=\"note\">{:.0f} samples, {:.2f}% of all; Time % is of its own samples. "
                               "<code>{}</code></p>\n",
                a.hits, a.percent, esc(a.path));
            const Analysed analysed = analysedModules(a.lines);
            moduleTable(out, a.modules, a.unattributed, analysed, prefix, true);
            programText(out, a.lines, prefix, a.name);
            out += "</section>\n";
        }

    } // namespace

} // namespace html

std::string renderHtmlReport(const Report& report, const HtmlOptions& options)
{
    using namespace html;
    std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
    out += fmt::format("<title>ppe profile: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
        esc(report.profile.image.substr(report.profile.image.rfind('/') + 1)), kStyle);
    navigation(out, report);
    out += "<main>\n";
    summary(out, report);
    warnings(out, report);
    diffSection(out, report);
    modulesSection(out, report, options);
    objectsSection(out, report);
    blockedSection(out, report);
    threadsSection(out, report);
    imbalanceSection(out, report);
    if (!report.lines.empty()) {
        out += "<section id=\"text\"><h2>Program text</h2>\n";
        programText(out, report.lines, "");
        out += "</section>\n";
    }
    for (size_t k = 0; k < report.objectAnalyses.size(); ++k)
        objectAnalysis(out, report.objectAnalyses[k], k, report.cpuTime);
    out += fmt::format("</main>\n<script>{}</script>\n</body>\n</html>\n", kScript);
    return out;
}

} // namespace ppe::formatter
