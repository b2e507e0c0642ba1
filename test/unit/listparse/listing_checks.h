// Questions the tests ask of a parsed listing.
#pragma once

#include "object_facts.h"

#include "ppe/listparse/listing.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ppe::listparse::test {

// Every listing in test/data/listings, by base name (NAME.lis, NAME.sections, NAME.objdump).
const std::vector<std::string>& fixtureNames();

// Parses NAME.lis; fails the test (and returns an empty listing) when it does not parse.
Listing parseFixture(const std::string& name);

// The name the listing knows an object's section by: the same, or the prefix the listing cut it
// to (Listing::truncatedSections); "" when the listing does not have the section.
// The listing's name for an object section: the same, or a cut name that is a prefix of it; of
// the cut names a C++ listing numbers (NAME, NAME#2...), the one of `size` when given.
std::string listedName(
    const Listing& listing, const std::string& objectSection, std::optional<uint64_t> size = std::nullopt);

// The range holding `offset` of `section`, or nullptr.
const CodeRange* rangeAt(const Listing& listing, const std::string& section, uint64_t offset);

// The base name of the file a range belongs to.
std::string fileOf(const Listing& listing, const CodeRange& range);

// Bytes the listing gives to `line` of the file with base name `file`, in `section`.
uint64_t bytesOfLine(const Listing& listing, const std::string& section, const std::string& file, int line);

// The code bytes the DWARF line table covers, and how many of them the listing gives the same
// line (or, where DWARF says line 0, no line).
struct Agreement {
    uint64_t bytes = 0;
    uint64_t agreeing = 0;
    std::string firstDifferences; // "section+offset: dwarf FILE:LINE, listing FILE:LINE", a few
    double fraction() const { return bytes ? double(agreeing) / double(bytes) : 0; }
};

Agreement compareWithLineTable(const Listing& listing, const std::vector<LineSequence>& table);

} // namespace ppe::listparse::test
