// Assembler listings with interleaved source (gcc/g++/gfortran -g -Wa,-adhln=FILE.lis, also
// clang -fno-integrated-as): which bytes of which code section come from which source line.
// Pure functions from text to structs; target-independent (x86-64, ARC and AArch64 are tested).
// The listing format, and what each quirk handled here looks like, are described in
// test/data/listings/README.md next to the real listings the tests use.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::listparse {

// A line of source text as the listing carries it. gas cuts lines at 99 characters (its
// --listing-rhs-width, 100 by default) and only shows lines up to the last one that has code.
struct SourceLine {
    int file = 0; // index into Listing::files
    int line = 0;
    std::string text;
};

// Bytes [offset, offset + size) of a code section, generated for one source line. Offsets are
// relative to the section's start in the object file, as the listing's address column shows.
struct CodeRange {
    std::string section;
    uint64_t offset = 0;
    uint64_t size = 0;
    int file = 0; // index into Listing::files
    int line = 0;
};

// A line of the assembler input that put bytes into a code section: an instruction, or a
// directive that emits bytes (.p2align padding, .byte), with its statement as written.
struct CodeLine {
    std::string section;
    uint64_t offset = 0;
    uint64_t size = 0; // up to the next line with bytes in the section, as CodeRange's bytes are
    std::string text; // "imull %esi, %eax": blanks (tabs) made one space
};

struct Listing {
    // Source files the code and text lines come from, by the names the listing uses. Index 0 is
    // the compiled file, even when no code is attributed to it.
    std::vector<std::string> files;
    // The compiled file as the compiler named it (`.file "simp.c"`); "" when the listing has none.
    std::string primarySource;
    // The directory the compiler ran in (`.file 0 "dir" "name"`, DWARF 5); relative file names
    // are relative to it. "" when the listing does not say.
    std::string compilationDirectory;
    // Every code section the listing switches to (flags with 'x', or named .text*, .init,
    // .fini), with the size the listing shows for it.
    std::map<std::string, uint64_t> sectionSizes;
    // Sorted by section and offset, non-overlapping. Bytes before the first line of their
    // section (as in DWARF, a .loc with line 0 does not start a new one) have no range.
    std::vector<CodeRange> ranges;
    // Sorted by file and line, one per line.
    std::vector<SourceLine> sourceLines;
    // Sorted by section and offset: every line with bytes in a code section, covering the bytes
    // of `ranges` (ppeout --asm shows them under their source lines).
    std::vector<CodeLine> codeLines;
    // Section names the listing cut at its text width (99 characters of a line): prefixes of the
    // real names, to be matched as such. A cut name that stands for several sections (C++ COMDAT
    // sections with a long common prefix) is numbered in listing order: NAME, NAME#2, NAME#3
    // (cutSectionPrefix gives NAME back); each has its own size and ranges. (A wider listing, -Wa,--listing-rhs-width,
    // crashes gas 2.40 on source lines longer than 100 characters.)
    std::set<std::string> truncatedSections;
    // The code section current at the listing's last line when the listing leaves out debugging
    // directives ('d'): the hidden line that left it would show the padding some targets (ARC)
    // add at a section's end, so its object size may be its listed size rounded up to
    // openSectionAlignment. "" when every section's end is visible.
    std::string openSection;
    uint64_t openSectionAlignment = 1;
    // The listing switches to gcc's link-time sections (.gnu.lto_*, .gnu.debuglto_*): made at
    // compile time with -flto, it holds intermediate code; with no code section besides (no
    // -ffat-lto-objects) the program's code is made at link time and listed nowhere here.
    bool ltoBytecode = false;
};

// Reads a listing. Errors name fileName and, where one is at fault, the listing line.
ppe::Result<Listing> parseListing(std::string_view text, std::string_view fileName);

// A cheap look at the first lines: true when the text looks like a gas listing. Used to skip
// the files a pattern matches that are not listings (the report itself, sources, maps).
bool looksLikeListing(std::string_view text);

// The prefix of the real section name a cut section name stands for: "NAME#2" -> "NAME".
std::string_view cutSectionPrefix(const Listing& listing, std::string_view section);

// True when a code section's size in the object (or the linker map) is what the listing shows,
// allowing for end padding the listing cannot show (see Listing::openSection).
bool sectionSizeAgrees(const Listing& listing, std::string_view section, uint64_t objectSize);

} // namespace ppe::listparse
