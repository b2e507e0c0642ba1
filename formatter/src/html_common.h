// What the HTML report's parts share (html_report.cc, html_text.cc, html_assets.cc).
#pragma once

#include "ppe/formatter/html_report.h"

#include <fmt/format.h>

#include <string>

namespace ppe::formatter::html {

inline std::string esc(std::string_view text) { return htmlEscape(text); }

// The id of a module's program text: "m3" for report.lines[3], "o1m3" in the second analysed
// shared object.
inline std::string moduleId(const std::string& prefix, size_t index) { return fmt::format("{}m{}", prefix, index); }

// A percentage of a bar's full length, for CSS widths.
inline std::string widthPercent(double value, double full)
{
    return fmt::format("{:.1f}%", full > 0 ? 100.0 * value / full : 0.0);
}

// A table cell with a number: `text` shown, `value` for sorting.
inline std::string numberCell(double value, const std::string& text)
{
    return fmt::format("<td class=\"num\" data-v=\"{:.6g}\">{}</td>", value, text);
}

// Hits as the text report shows them: "<1" for a split share under half a hit.
inline std::string hitsText(double hits)
{
    if (hits > 0 && hits < 0.5)
        return "&lt;1";
    return fmt::format("{:.0f}", hits);
}

// The program text of the analysed modules (of the executable or of one shared object, `prefix`
// "o1" for the second, named `object`).
void programText(
    std::string& out, const std::vector<ModuleLines>& lines, const std::string& prefix, const std::string& object = "");

extern const char* const kStyle; // the page's CSS
extern const char* const kScript; // sorting the tables, showing and hiding instructions

} // namespace ppe::formatter::html
