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

std::string gnuLdOutputFile(const std::vector<MapLine>& lines)
{
    for (auto l = lines.rbegin(); l != lines.rend(); ++l) {
        if (!l->text.starts_with("OUTPUT(") || !l->text.ends_with(")"))
            continue;
        const std::string_view inside = l->text.substr(7, l->text.size() - 8);
        // The format is one word after the name; a name with spaces keeps them.
        const std::size_t space = inside.rfind(' ');
        return std::string(space == std::string_view::npos ? inside : inside.substr(0, space));
    }
    return "";
}

} // namespace ppe::mapparse
