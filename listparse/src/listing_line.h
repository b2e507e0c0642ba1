// One line of a gas listing, classified. The layouts come from gas/listing.c (print_lines,
// print_source, listing_page, list_symbol_table):
//   "  12 0000 4889E5   \t\tmovq %rsp, %rbp"   line-number, address, bytes, tab, statement
//   "  21      4DE8"                           more bytes of line 21 (no tab, no statement)
//   "  13              \t\t.loc 1 13 20"       a line without bytes
//   "  13:simp.c        ****     lim = ..."    a source line gas interleaves (-ah)
//   "\fGAS LISTING simp.s \t\t\tpage 2"        a page header, then a title and a subtitle line
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ppe::listparse {

enum class LineKind {
    Code, // a line of the assembler input, with or without bytes
    Continuation, // more bytes of the Code line above
    Source, // a line of the high-level source
    PageHeader, // "GAS LISTING ..." (without -an), followed by a title and a subtitle line
    Message, // "****  Warning: ..." or "****  Error: ..." about the line above
    Blank,
    SymbolTable, // "DEFINED SYMBOLS" and what follows (-as)
    GeneralInfo, // " GNU assembler version ..." (-ag), up to the first listing line
    Unknown,
};

struct ListingLine {
    LineKind kind = LineKind::Unknown;
    std::size_t textLine = 0; // 1-based line of the listing file, for messages
    unsigned number = 0; // the line-number column: of the assembler input, or of the source
    bool hasAddress = false;
    bool addressUnknown = false; // "????": the assembler reported errors
    uint64_t address = 0; // offset in the current section
    uint64_t byteCount = 0; // bytes shown, continuation lines included (gas shows at most 20)
    std::string_view text; // Code: the statement as written; Source: the source text
    std::string_view fileName; // Source: the file as the listing names it
    // Set when gas showed a line of a C file in place of inline assembly (see
    // line_marker_regions.h); such a line's text is source, not a statement.
    bool logical = false;
    std::string logicalFile;
};

// Classifies one line of a listing, without its line terminator.
ListingLine classifyLine(std::string_view line);

} // namespace ppe::listparse
