// The report as one self-contained HTML page (ppeout --format html): the header, a bar chart of the
// modules with their error bars (inline SVG), sortable module and function tables, and the
// program text of the analysed modules shaded by each line's share of the time, with the
// instructions under the lines when the report has them (--asm). No network: the style and the
// little script (table sorting) are inline, the fonts are the reader's own. It formats the model's
// numbers (report.h) and works none out; only bar lengths and shades are scaled.
#pragma once

#include "ppe/formatter/report.h"

#include <string>
#include <string_view>

namespace ppe::formatter {

struct HtmlOptions {
    unsigned chartRows = 16; // modules in the bar chart (the table lists them all)
};

std::string renderHtmlReport(const Report& report, const HtmlOptions& options = {});

// `text` as HTML element content or a quoted attribute value: & < > " ' as entities, bytes that
// are not UTF-8 (a Latin-1 source file) and control characters other than tab as U+FFFD.
std::string htmlEscape(std::string_view text);

} // namespace ppe::formatter
