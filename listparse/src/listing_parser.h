// Walks the lines of a listing the way gas read its input: it follows section switches, gives
// the bytes of each line to the current section, and attributes them to source lines the way
// gas builds its line table (gas/dwarf2dbg.c): a .loc starts a row at the next instruction (or,
// with a view, where the assembler is), and a section keeps its last row's line until its next
// row. When the listing shows no .loc, the last interleaved source line stands in for it.
#pragma once

#include "code_layout.h"
#include "file_table.h"
#include "listing_line.h"
#include "section_tracker.h"
#include "statement.h"

#include "ppe/listparse/listing.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ppe::listparse {

class ListingParser {
public:
    explicit ListingParser(bool listingShowsLoc)
        : m_useLoc(listingShowsLoc)
    {
    }

    void add(const ListingLine& line);
    Listing finish();

private:
    struct SectionInfo {
        bool code = false;
        uint64_t alignment = 1;
    };
    using Handler = void (ListingParser::*)(std::string_view directive, std::string_view args);

    void onSource(const ListingLine& line);
    void onCode(const ListingLine& line);
    void keepText(int fileId, int line, std::string_view text);
    void recordBytes(const ListingLine& line, bool instruction);
    void onDirective(const Statement& statement);
    static const std::map<std::string_view, Handler>& handlers();
    SectionInfo& declare(const std::string& name, std::optional<std::string_view> flags = std::nullopt);

    void onSection(std::string_view directive, std::string_view args);
    void onNamedSection(std::string_view directive, std::string_view args);
    void onSubsection(std::string_view directive, std::string_view args);
    void onPopSection(std::string_view directive, std::string_view args);
    void onPrevious(std::string_view directive, std::string_view args);
    void onFile(std::string_view directive, std::string_view args);
    void onLoc(std::string_view directive, std::string_view args);
    void onAlign(std::string_view directive, std::string_view args);
    void onSymbolDebugging(std::string_view directive, std::string_view args);
    void resolveCutSection(uint64_t address);
    void moveRows(const std::string& from, const std::string& to);

    std::set<std::string> codeSections() const;
    std::set<int> usedFileIds(const std::set<std::string>& code) const;
    std::vector<SourceLine> sourceLines(const std::vector<int>& indexOfId) const;

    bool m_useLoc;
    FileTable m_files;
    SectionTracker m_sections;
    std::map<std::string, SectionInfo> m_sectionInfo;
    std::optional<LineRow> m_nextInstructionRow; // a row for the next instruction, in any section
    std::map<std::pair<std::string, int>, LineRow> m_rowsHere; // rows at the current end of a subsection
    std::vector<Chunk> m_chunks;
    std::map<std::pair<int, int>, std::string> m_texts; // (file id, line) -> text
    std::set<std::string> m_truncatedSections;
    std::map<std::string, uint64_t> m_cutEnds; // sections of cut names (NAME, NAME#2...): end offset so far
    std::optional<std::string> m_cutEntered; // a cut name just switched to, its section not yet known
    std::optional<int> m_sourceFileBeforeCode; // the file of source lines since the last Code line
    bool m_textCut = false; // the current statement reaches gas's text width
    bool m_showsDebugging = false; // the listing was made without 'd'
    bool m_ltoBytecode = false; // a .gnu.lto_* or .gnu.debuglto_* section (Listing::ltoBytecode)
};

// True when some line of the listing is a .loc directive.
bool showsLocDirectives(const std::vector<ListingLine>& lines);

} // namespace ppe::listparse
