// Is the linker map of the program the profile is of? A map of another program, or of another
// build of this one, would be read without complaint and put the time in the wrong modules
// (issue 18), so the map is checked against the profile before any hit is counted. Pure functions.
#pragma once

#include "ppe/debuginfo/debug_info.h"
#include "ppe/mapparse/link_map.h"
#include "ppe/profile/profile.h"

#include <optional>
#include <string>

namespace ppe::formatter {

struct SectionFit {
    size_t sections = 0; // code sections of the map
    size_t amiss = 0; // of them, those that do not start and end where functions of the image do
};

// How many of the map's code sections (in .text: crtn.o's pieces of .init and .fini hold no
// function) start where a function of the image starts and end where one ends.
SectionFit sectionsAtFunctions(const mapparse::LinkMap& map, const debuginfo::DebugInfo& image);

// The image's own evidence, when it is the profile's build: each code section of the map starts
// where one of the image's functions (symbols or DWARF) starts. Sections that hold no symbol
// (crtn.o's pieces of .init and .fini) are why a few may miss; a map of another program or build
// misses most. Returns why the map does not fit ("9 of its 12 code sections ..."), or nullopt.
std::optional<std::string> mapMismatchBySymbols(const mapparse::LinkMap& map, const debuginfo::DebugInfo& image);

// The code sections the collector read from the image's section headers at start (the .ppe's
// code-section records; none in older files): the map's code in each of these output sections
// must start where the section starts and end within a few bytes of its end. A map of another
// build of the same program fails this even when the image is gone. Returns why not, or nullopt.
std::optional<std::string> mapMismatchBySections(const mapparse::LinkMap& map, const Profile& profile);

// Without the image: mapMismatchBySections, then the map's code must lie in the profile's monitored range, and the
// in-range hits that fall outside every code section of the map must be few (padding, PLT and skid take a few percent;
// a map of another program leaves many hits outside). Returns why not, or nullopt.
std::optional<std::string> mapMismatchByRange(const mapparse::LinkMap& map, const Profile& profile);

// The share of in-range hits that fall outside every code section of the map, in percent.
double hitsOutsideMapPercent(const mapparse::LinkMap& map, const Profile& profile);

} // namespace ppe::formatter
