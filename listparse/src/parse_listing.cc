// The public entry points: read the lines, put the bytes of inline assembly back where gas
// took them from, walk the lines.
#include "ppe/listparse/listing.h"

#include "line_marker_regions.h"
#include "listing_lines.h"
#include "listing_parser.h"

namespace ppe::listparse {

ppe::Result<Listing> parseListing(std::string_view text, std::string_view fileName)
{
    auto lines = readListingLines(text, fileName);
    if (!lines)
        return lines.error();
    resolveLineMarkerRegions(*lines);
    ListingParser parser(showsLocDirectives(*lines));
    for (const ListingLine& line : *lines)
        parser.add(line);
    return parser.finish();
}

bool looksLikeListing(std::string_view text) { return startsLikeListing(text); }

std::string_view cutSectionPrefix(const Listing& listing, std::string_view section)
{
    const size_t hash = section.rfind('#');
    if (hash == std::string_view::npos || !listing.truncatedSections.contains(std::string(section)))
        return section;
    const std::string_view prefix = section.substr(0, hash);
    return listing.truncatedSections.contains(std::string(prefix)) ? prefix : section;
}

bool sectionSizeAgrees(const Listing& listing, std::string_view section, uint64_t objectSize)
{
    auto it = listing.sectionSizes.find(std::string(section));
    if (it == listing.sectionSizes.end())
        return false;
    uint64_t listed = it->second;
    if (objectSize == listed)
        return true;
    uint64_t alignment = listing.openSectionAlignment;
    if (section != listing.openSection || alignment == 0 || objectSize < listed)
        return false;
    return objectSize - listed < alignment && objectSize % alignment == 0;
}

} // namespace ppe::listparse
