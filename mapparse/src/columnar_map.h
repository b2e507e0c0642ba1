// The layout lld and mold share: a heading row, then one row per output section, input section
// and symbol: number columns, one space, and the name indented by 0, 8 or 16 spaces. An input
// section is named "FILE:(SECTION)".
#pragma once

#include "input_section.h"
#include "map_lines.h"

#include <optional>

namespace ppe::mapparse {

using NumberParser = std::optional<uint64_t> (*)(std::string_view);

struct ColumnLayout {
    std::vector<NumberParser> columns; // the first is the address
    std::size_t sizeColumn = 0;
};

struct ColumnarMap {
    InputSections sections;
    std::vector<std::string_view> outputSections; // in map order
};

// Reads every row after the heading (the first non-blank line).
Result<ColumnarMap> parseColumnarMap(
    const std::vector<MapLine>& lines, const ColumnLayout& layout, std::string_view fileName);

bool contains(const std::vector<std::string_view>& names, std::string_view name);

} // namespace ppe::mapparse
