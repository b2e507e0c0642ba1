// One parser per linker's map layout. Each takes the whole map (already recognised by
// detect.cc) and returns its input sections, or the first line it cannot read.
#pragma once

#include "input_section.h"
#include "map_lines.h"

#include <string>

namespace ppe::mapparse {

Result<InputSections> parseGnuLdMap(const std::vector<MapLine>& lines, std::string_view fileName);
Result<InputSections> parseGoldMap(const std::vector<MapLine>& lines, std::string_view fileName);
Result<InputSections> parseLldMap(const std::vector<MapLine>& lines, std::string_view fileName);
Result<InputSections> parseMoldMap(const std::vector<MapLine>& lines, std::string_view fileName);

// The output file a GNU ld map names in its last statement, "OUTPUT(FILE FORMAT)"; "" when none.
std::string gnuLdOutputFile(const std::vector<MapLine>& lines);

} // namespace ppe::mapparse
