// Recognises which linker wrote a map from the text alone, or says what else the text is.
#pragma once

#include "map_lines.h"
#include "ppe/mapparse/link_map.h"

namespace ppe::mapparse {

// GNU ld and gold are told apart by their memory map heading ("Linker script and memory map",
// "Memory map"), lld and mold by their column headings. Empty text, binary data, a .ppe profile,
// any other text, and a GNU ld or gold map cut off before its memory map are errors.
Result<Dialect> detectDialect(std::string_view text, const std::vector<MapLine>& lines, std::string_view fileName);

} // namespace ppe::mapparse
