#include "ppe/formatter/renderers.h"

#include "ppe/formatter/text_report.h"

namespace ppe::formatter {

namespace {

    std::string renderPpl(const Report& report, const RenderOptions& options)
    {
        return renderTextReport(report, TextOptions { options.barWidth });
    }

} // namespace

const std::vector<RendererEntry>& renderers()
{
    static const std::vector<RendererEntry> table = {
        { "ppl", renderPpl, "the PPE text report" },
        { "json", renderJsonReport, "the whole report model as JSON (docs/report.schema.json)" },
        { "csv", renderCsvReport, "one row per module, function, line and instruction, for spreadsheets" },
        { "callgrind", renderCallgrindReport, "callgrind profile format, for KCachegrind and callgrind_annotate" },
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
