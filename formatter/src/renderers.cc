#include "ppe/formatter/renderers.h"

#include "ppe/formatter/html_report.h"
#include "ppe/formatter/text_diff.h"
#include "ppe/formatter/text_report.h"

namespace ppe::formatter {

namespace {

    // With --diff the text is the comparison alone, as it has always been.
    std::string renderPpl(const Report& report, const RenderOptions& options)
    {
        if (report.diff)
            return renderTextDiff(*report.diff);
        return renderTextReport(report, TextOptions { options.barWidth });
    }

    std::string renderHtml(const Report& report, const RenderOptions&) { return renderHtmlReport(report); }

} // namespace

const std::vector<RendererEntry>& renderers()
{
    static const std::vector<RendererEntry> table = {
        { "ppl", renderPpl, "the PPE text report" },
        { "json", renderJsonReport, "the whole report model as JSON (docs/report.schema.json)" },
        { "csv", renderCsvReport, "one row per module, function, line and instruction, for spreadsheets" },
        { "callgrind", renderCallgrindReport, "callgrind profile format, for KCachegrind and callgrind_annotate" },
        { "html", renderHtml, "one self-contained HTML page: chart, sortable table, shaded program text" },
    };
    return table;
}

const RendererEntry* findRenderer(const std::string& name)
{
    for (const RendererEntry& r : renderers()) {
        if (name == r.name)
            return &r;
    }
    return nullptr;
}

} // namespace ppe::formatter
