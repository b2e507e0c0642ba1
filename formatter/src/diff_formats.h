// `ppeout --diff` in the formats other than text: Report::diff drawn by the JSON and CSV renderers
// (the HTML page draws it in html_diff.cc).
#pragma once

#include "ppe/formatter/json_writer.h"
#include "ppe/formatter/report.h"

#include <optional>
#include <string>

namespace ppe::formatter {

// The report's "diff" field: null without --diff (json_diff.cc).
void jsonDiff(JsonWriter& w, const std::optional<DiffReport>& diff);

// The comparison as CSV, with its own columns (csv_diff.cc; docs/formats.md lists them).
std::string renderCsvDiff(const DiffReport& diff);

// "both", "only_base", "only_new".
const char* presenceName(DiffPresence presence);

} // namespace ppe::formatter
