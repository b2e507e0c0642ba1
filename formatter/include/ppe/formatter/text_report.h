// The PPE report as text (the seed's Tables 1-4): header, module table in decreasing time, and
// the program text of the analysed modules with hits, a bar and the accumulated % per line.
// It formats the model's numbers (report.h) and works none out; only the bars are scaled to the
// width asked for.
#pragma once

#include "ppe/formatter/report.h"

#include <string>

namespace ppe::formatter {

struct TextOptions {
    unsigned barWidth = 40; // characters of the busiest line's bar
};

std::string renderTextReport(const Report& report, const TextOptions& options = {});

} // namespace ppe::formatter
