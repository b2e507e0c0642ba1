// From the bytes a listing shows at each address to section sizes and line ranges.
#pragma once

#include "ppe/listparse/listing.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ppe::listparse {

// A row of the assembler's line table: from its address on, code comes from this line.
struct LineRow {
    int fileId = -1; // FileTable id
    int line = 0; // 0: no source line (clang's .loc N 0)
};

// The bytes one listing line shows, and the line-table row that starts at them, if any.
struct Chunk {
    std::string section;
    uint64_t offset = 0;
    uint64_t shownBytes = 0;
    std::optional<LineRow> row;
    std::string text; // the statement, blanks made one space
};

struct CodeLayout {
    std::map<std::string, uint64_t> sizes;
    std::vector<CodeRange> ranges;
    std::vector<CodeLine> codeLines;
};

// Each chunk of a code section owns the bytes up to the next address listed in that section:
// gas shows at most 20 bytes of a line and hides some lines, but its addresses are exact. The
// last chunk of a section owns the bytes it shows. In address order, a chunk's bytes come from
// the line of the last row at or before it (one DWARF sequence per section, the subsections
// one after the other). Chunks of other sections are ignored; indexOfId maps FileTable ids to
// Listing::files indexes.
CodeLayout layOutCode(
    std::vector<Chunk> chunks, const std::set<std::string>& codeSections, const std::vector<int>& indexOfId);

} // namespace ppe::listparse
