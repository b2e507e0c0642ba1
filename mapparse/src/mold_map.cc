// mold -Map: "VMA Size Align Out In Symbol", the address in hex printed with std::showbase ("0"
// for zero, "0x1790" otherwise), size and alignment in decimal. Symbols show size 0. The
// section header table (SHDR) is the last row.
#include "columnar_map.h"
#include "dialects.h"
#include "numbers.h"

namespace ppe::mapparse {

Result<InputSections> parseMoldMap(const std::vector<MapLine>& lines, std::string_view fileName)
{
    const ColumnLayout layout { { parseShowbaseHex, parseDecimal, parseDecimal }, 1 };
    auto map = parseColumnarMap(lines, layout, fileName);
    if (!map)
        return map.error();
    if (!contains(map->outputSections, "SHDR"))
        return mapError(fileName, lines.back().number, "truncated linker map (no SHDR row at the end)");
    return std::move(map->sections);
}

} // namespace ppe::mapparse
