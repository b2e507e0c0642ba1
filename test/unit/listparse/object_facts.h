// What the object file says about the code a listing describes, read from the tool output
// that test/data/listings/generate.sh keeps next to each listing.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ppe::listparse::test {

// The text of a fixture file in test/data/listings; fails the test when it cannot be read.
std::string readFixture(const std::string& name);

// The lines of a source file in test/data/listings/src.
std::vector<std::string> sourceFileLines(const std::string& name);

// Code (executable) sections and their sizes from `readelf -SW` output.
std::map<std::string, uint64_t> codeSectionsFromReadelf(const std::string& text);

// One row of a DWARF line table: from `address` on, code comes from `line` of `file` (base
// name); line 0 means no source line.
struct LineRow {
    uint64_t address = 0;
    std::string file;
    int line = 0;
};

// A line-table sequence: the rows of one code section, up to `end`.
struct LineSequence {
    std::string section;
    std::vector<LineRow> rows;
    uint64_t end = 0;
};

// From `objdump --dwarf=decodedline` output followed by the .rela.debug_line part of
// `readelf -rW` (whose relocations name each sequence's section, in order). Fails the test when
// the two do not count the same sequences.
std::vector<LineSequence> lineTableFromDump(const std::string& text);

} // namespace ppe::listparse::test
