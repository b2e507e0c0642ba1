// The memory map layout GNU ld and gold share: output sections at column 0, input sections
// indented by one space as "NAME ADDRESS SIZE FILE", symbols and assignments further in.
#pragma once

#include "input_section.h"
#include "map_lines.h"

namespace ppe::mapparse {

// Reads the input sections of lines[begin...], the memory map after its heading.
Result<InputSections> parseLdMemoryMap(const std::vector<MapLine>& lines, std::size_t begin, std::string_view fileName);

// Index of the line just after the first line that is exactly `heading`, or lines.size().
std::size_t lineAfter(const std::vector<MapLine>& lines, std::string_view heading);

// True if some line from `begin` on is an output section statement named `name` (column 0).
bool hasOutputSection(const std::vector<MapLine>& lines, std::size_t begin, std::string_view name);

} // namespace ppe::mapparse
