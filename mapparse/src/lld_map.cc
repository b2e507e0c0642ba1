// lld -Map: "VMA LMA Size Align Out In Symbol", every number hex without a prefix except the
// decimal alignment. Sections lld makes itself come from "<internal>". .shstrtab is always
// among the last output sections.
#include "columnar_map.h"
#include "dialects.h"
#include "numbers.h"

namespace ppe::mapparse {

Result<InputSections> parseLldMap(const std::vector<MapLine>& lines, std::string_view fileName)
{
    const ColumnLayout layout { { parseBareHex, parseBareHex, parseBareHex, parseDecimal }, 2 };
    auto map = parseColumnarMap(lines, layout, fileName);
    if (!map)
        return map.error();
    if (!contains(map->outputSections, ".shstrtab"))
        return mapError(fileName, lines.back().number, "truncated linker map (no .shstrtab section at the end)");
    return std::move(map->sections);
}

} // namespace ppe::mapparse
