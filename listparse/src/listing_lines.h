// A listing file as the sequence of its Code and Source lines: page headers with their title
// lines, messages and blank lines dropped, continuation bytes added to the line they continue,
// the -ag preamble and the -as symbol table left out.
#pragma once

#include "listing_line.h"

#include "ppe/support/result.h"

#include <string_view>
#include <vector>

namespace ppe::listparse {

ppe::Result<std::vector<ListingLine>> readListingLines(std::string_view text, std::string_view fileName);

// True when the first line that is not a page header, preamble or blank is a listing line.
bool startsLikeListing(std::string_view text);

} // namespace ppe::listparse
