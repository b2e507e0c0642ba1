// `ppeout --diff` as text: both profiles' header numbers, the program's change of time, and a
// table per kind of module with each row's shares, times, z-tests and verdict. It formats the
// model's numbers (report.h, DiffReport) and works none out.
#pragma once

#include "ppe/formatter/diff_report.h"

#include <string>

namespace ppe::formatter {

std::string renderTextDiff(const DiffReport& diff);

} // namespace ppe::formatter
