// The HTML report's program text: each analysed module's source lines shaded by their share of
// the module's busiest line, with hits, bars and accumulated %, and the instructions under the
// lines that have them (--asm).
#include "html_common.h"

#include <algorithm>

namespace ppe::formatter::html {

namespace {

    // The row's background: the warmer, the busier the line is next to the module's busiest.
    std::string shade(double hits, double busiest)
    {
        if (hits <= 0 || busiest <= 0)
            return "";
        const double alpha = 0.06 + 0.5 * std::min(1.0, hits / busiest);
        return fmt::format(" style=\"background:rgba(255,112,40,{:.3f})\"", alpha);
    }

    std::string lineId(const std::string& module, size_t file, int line)
    {
        return fmt::format("{}-{}-{}", module, file, line);
    }

    std::string bar(double hits, double busiest, const char* kind)
    {
        if (hits <= 0)
            return "<td class=\"bar\"></td>";
        return fmt::format(
            "<td class=\"bar\"><span class=\"{}\" style=\"width:{}\"></span></td>", kind, widthPercent(hits, busiest));
    }

    void instructionRows(std::string& out, const LineRow& row, double busiest)
    {
        for (const InstructionRow& i : row.instructions) {
            out += fmt::format("<tr class=\"asm\"{}><td class=\"ln\"></td><td class=\"num\">{}</td>{}<td "
                               "class=\"addr\">{:x}</td><td class=\"code\">{}</td></tr>\n",
                shade(i.hits * 0.8, busiest), i.hits > 0 ? hitsText(i.hits) : "", bar(i.hits, busiest, "i"), i.address,
                esc(i.text));
        }
    }

    void lineRow(std::string& out, const LineRow& row, const std::string& id, double busiest)
    {
        const char* kind = row.hits > 0 ? "hit" : row.code ? "code" : "nocode";
        out += fmt::format("<tr id=\"{}\" class=\"{}\"{}><td class=\"ln\"><a href=\"#{}\">{}</a></td>", id, kind,
            shade(row.hits, busiest), id, row.line);
        if (row.hits > 0)
            out += fmt::format("<td class=\"num\">{}{}</td>{}<td class=\"num\">{:.1f}</td>", hitsText(row.hits),
                row.splitHits > 0 ? "*" : "", bar(row.hits, busiest, "b"), row.accumulated);
        else
            out += "<td></td><td class=\"bar\"></td><td></td>";
        out += "<td class=\"code\">" + esc(row.text) + "</td></tr>\n";
        instructionRows(out, row, busiest);
    }

    std::string fileNote(const FileLines& file)
    {
        const bool carried
            = std::any_of(file.rows.begin(), file.rows.end(), [](const LineRow& r) { return !r.text.empty(); });
        std::string note;
        if (file.textPath.empty())
            note = carried ? "the text as the listing shows it" : "source not found: --source-dir DIR";
        else if (file.textPath != file.name)
            note = "text from " + file.textPath;
        if (!file.own) {
            note += note.empty() ? "" : "; ";
            note += "its lines with hits in this module";
            for (size_t i = 0; i < file.inlinedInto.size(); ++i)
                note += (i ? ", " : ", inlined into ") + file.inlinedInto[i];
        }
        return note.empty() ? "" : " <span class=\"meta\">(" + esc(note) + ")</span>";
    }

    void fileTable(std::string& out, const ModuleLines& m, size_t f, const std::string& id)
    {
        const FileLines& file = m.files[f];
        out += "<h4>" + esc(file.name) + fileNote(file) + "</h4>\n";
        out += "<div class=\"scroll\"><table class=\"src\"><thead><tr><th class=\"ln\">Line</th><th "
               "class=\"num\">Hits</th><th class=\"bar\"></th><th class=\"num\">Acc %</th><th>Source</th></tr>"
               "</thead><tbody>\n";
        for (const LineRow& row : file.rows)
            lineRow(out, row, lineId(id, f, row.line), m.busiest);
        out += "</tbody></table></div>\n";
    }

    // Links to the module's busiest lines, busiest first.
    void busiestLines(std::string& out, const ModuleLines& m, const std::string& id)
    {
        struct Hot {
            double hits;
            size_t file;
            int line;
        };
        std::vector<Hot> hot;
        for (size_t f = 0; f < m.files.size(); ++f) {
            for (const LineRow& row : m.files[f].rows) {
                if (row.hits > 0)
                    hot.push_back(Hot { row.hits, f, row.line });
            }
        }
        std::stable_sort(hot.begin(), hot.end(), [](const Hot& a, const Hot& b) { return a.hits > b.hits; });
        if (hot.empty())
            return;
        out += "<p class=\"hot\">Busiest lines:";
        for (size_t i = 0; i < hot.size() && i < 5; ++i) {
            const std::string& file = m.files[hot[i].file].name;
            const std::string place = m.files.size() > 1 ? esc(file.substr(file.rfind('/') + 1)) + ":" : "";
            out += fmt::format("{} <a href=\"#{}\">{}{}</a> ({} {})", i ? "," : "",
                lineId(id, hot[i].file, hot[i].line), place, hot[i].line, hitsText(hot[i].hits),
                hitsText(hot[i].hits) == "1" ? "hit" : "hits");
        }
        out += "</p>\n";
    }

    void moduleText(std::string& out, const ModuleLines& m, const std::string& id, const std::string& object)
    {
        out += fmt::format("<article class=\"module\" id=\"{}\"><h3>{}{} <span class=\"meta\">{:.0f} hits &middot; "
                           "lines from the {}</span></h3>\n",
            id, esc(m.name), object.empty() ? "" : " in " + esc(object), m.hits, esc(m.origin));
        busiestLines(out, m, id);
        for (size_t f = 0; f < m.files.size(); ++f)
            fileTable(out, m, f, id);
        if (m.withoutLine >= 0.5)
            out += fmt::format(
                "<p class=\"note\">{} hits on code of the module that no line owns.</p>\n", hitsText(m.withoutLine));
        if (m.splitHits > 0)
            out += fmt::format("<p class=\"note\">* {:.0f} hits of the lines marked came from bins split between "
                               "lines or modules by bytes.</p>\n",
                m.splitHits);
        out += "</article>\n";
    }

} // namespace

void programText(
    std::string& out, const std::vector<ModuleLines>& lines, const std::string& prefix, const std::string& object)
{
    for (size_t i = 0; i < lines.size(); ++i)
        moduleText(out, lines[i], moduleId(prefix, i), object);
}

} // namespace ppe::formatter::html
