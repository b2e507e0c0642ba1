// The PPE report as text (the seed's Tables 1, 2 and 4): header, module table in decreasing
// time, and (later) program text with per-line hits and bars.
#pragma once

#include "ppe/formatter/report.h"

#include <string>

namespace ppe {

std::string renderTextReport(const Report& report);

} // namespace ppe
