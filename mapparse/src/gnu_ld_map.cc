// GNU ld (bfd) -Map: a preamble (archive members, discarded input sections, memory
// configuration), then "Linker script and memory map" with the script's statements interleaved
// with what they placed, ending in "OUTPUT(FILE FORMAT)".
#include "dialects.h"
#include "ld_memory_map.h"

#include <algorithm>

namespace ppe::mapparse {

namespace {

    bool hasOutputStatement(const std::vector<MapLine>& lines, std::size_t begin)
    {
        return std::any_of(lines.begin() + std::ptrdiff_t(begin), lines.end(),
            [](const MapLine& l) { return l.text.starts_with("OUTPUT("); });
    }

} // namespace

Result<InputSections> parseGnuLdMap(const std::vector<MapLine>& lines, std::string_view fileName)
{
    const std::size_t begin = lineAfter(lines, "Linker script and memory map");
    if (!hasOutputStatement(lines, begin))
        return mapError(fileName, lines.back().number, "truncated linker map (no OUTPUT line at the end)");
    return parseLdMemoryMap(lines, begin, fileName);
}

} // namespace ppe::mapparse
