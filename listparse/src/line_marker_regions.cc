#include "line_marker_regions.h"

#include "statement.h"

#include <map>
#include <optional>

namespace ppe::listparse {

namespace {

    // The C lines gas listed after the marker at `start`: Code lines numbered one after the other,
    // up to the first line of the assembler file after the marker, printed without bytes. nullopt
    // when the lines do not have that shape (gas read a pipe and never went back).
    std::optional<std::vector<size_t>> findLogicalLines(
        const std::vector<ListingLine>& lines, size_t start, size_t& catchUp)
    {
        unsigned markerLine = lines[start].number;
        std::vector<size_t> logical;
        for (size_t i = start + 1; i < lines.size(); ++i) {
            const ListingLine& line = lines[i];
            if (line.kind != LineKind::Code)
                continue;
            if (line.number == markerLine + 1 && !line.hasAddress) {
                catchUp = i;
                return logical;
            }
            if (!logical.empty() && line.number != lines[logical.back()].number + 1)
                return std::nullopt;
            logical.push_back(i);
        }
        return std::nullopt;
    }

    // The assembler lines gas printed late, from `catchUp`: by line number.
    std::map<unsigned, size_t> lateLines(const std::vector<ListingLine>& lines, size_t catchUp)
    {
        std::map<unsigned, size_t> byNumber;
        for (size_t i = catchUp; i < lines.size(); ++i) {
            const ListingLine& line = lines[i];
            if (line.kind != LineKind::Code || line.hasAddress)
                break;
            if (!byNumber.empty() && line.number <= byNumber.rbegin()->first)
                break;
            byNumber[line.number] = i;
        }
        return byNumber;
    }

    void moveBytes(ListingLine& from, ListingLine& to)
    {
        to.hasAddress = true;
        to.address = from.address;
        to.byteCount = from.byteCount;
        from.hasAddress = false;
        from.byteCount = 0;
    }

    void resolveRegion(std::vector<ListingLine>& lines, size_t start, const LineMarker& marker)
    {
        size_t catchUp = 0;
        auto logical = findLogicalLines(lines, start, catchUp);
        if (!logical)
            return;
        std::map<unsigned, size_t> late = lateLines(lines, catchUp);
        unsigned firstAsmLine = lines[start].number + 1; // has line `marker.line` in the C file
        for (size_t i : *logical) {
            ListingLine& line = lines[i];
            line.logical = true;
            line.logicalFile = marker.file;
            if (!line.hasAddress || line.number < marker.line)
                continue;
            auto target = late.find(firstAsmLine + (line.number - marker.line));
            if (target != late.end())
                moveBytes(line, lines[target->second]);
        }
    }

} // namespace

void resolveLineMarkerRegions(std::vector<ListingLine>& lines)
{
    for (size_t i = 0; i < lines.size(); ++i) {
        if (lines[i].kind != LineKind::Code || lines[i].logical)
            continue;
        auto marker = parseLineMarker(lines[i].text);
        if (marker && !marker->file.empty())
            resolveRegion(lines, i, *marker);
    }
}

} // namespace ppe::listparse
