// The report's output formats (ppeout --format): each a function from the report model to the
// file's text, found by name. A renderer only formats the model's numbers (report.h); none works a
// statistic out again.
#pragma once

#include "ppe/formatter/messages.h"
#include "ppe/formatter/report.h"

#include <string>
#include <vector>

namespace ppe::formatter {

struct RenderOptions {
    unsigned barWidth = 40; // characters of the busiest line's bar (text)
    // makeReport's notes and warnings about the inputs (a listing skipped, DWARF used): the text
    // formats leave them to stderr, JSON keeps them; nullptr: none.
    const Messages* messages = nullptr;
};

using Renderer = std::string (*)(const Report& report, const RenderOptions& options);

struct RendererEntry {
    const char* name; // the --format value
    Renderer render;
    const char* description; // for --help
};

// Every format, the default (ppl) first. A new format is one more entry in renderers.cc.
const std::vector<RendererEntry>& renderers();

// The format named `name`, or nullptr.
const RendererEntry* findRenderer(const std::string& name);

// The formats other than the text report (json_report.cc, csv_report.cc, callgrind_report.cc).
std::string renderJsonReport(const Report& report, const RenderOptions& options);
std::string renderCsvReport(const Report& report, const RenderOptions& options);
std::string renderCallgrindReport(const Report& report, const RenderOptions& options);

} // namespace ppe::formatter
