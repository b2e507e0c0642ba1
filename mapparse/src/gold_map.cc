// gold -Map: GNU ld's layout without the linker script: a preamble, then "Memory map" with
// output and input sections only; what gold made itself is listed as "** NAME" (PLT, fill,
// merged strings). Its last output section is .shstrtab.
#include "dialects.h"
#include "ld_memory_map.h"

namespace ppe::mapparse {

Result<InputSections> parseGoldMap(const std::vector<MapLine>& lines, std::string_view fileName)
{
    const std::size_t begin = lineAfter(lines, "Memory map");
    if (!hasOutputSection(lines, begin, ".shstrtab"))
        return mapError(fileName, lines.back().number, "truncated linker map (no .shstrtab section at the end)");
    return parseLdMemoryMap(lines, begin, fileName);
}

} // namespace ppe::mapparse
