// Address sources for the report model: a linker map's modules, and compiler listings placed at
// the addresses the map gives their sections. Pure functions (no file access).
#pragma once

#include "ppe/debuginfo/disassembly.h"
#include "ppe/formatter/report.h"
#include "ppe/listparse/listing.h"
#include "ppe/mapparse/link_map.h"
#include "ppe/support/result.h"

#include <string>
#include <string_view>
#include <vector>

namespace ppe::formatter {

// The modules of a map: its compilation units, and with -ffunction-sections each function a
// module of its own (the Linux counterpart of Fortran /SEPARATE on VMS), its cold and hot parts
// included, named demangled. A unit with code outside function sections (.text, .text.startup:
// built without -ffunction-sections) keeps its C++ COMDAT sections (.text._Z...: templates, inline
// functions). origin[i] is the index of modules[i]'s compilation unit in map.modules.
std::vector<CodeModule> modulesFromMap(const mapparse::LinkMap& map, std::vector<size_t>& origin);

// A C++ symbol as the GNU tools show it (abi::__cxa_demangle); other names as they are.
std::string demangledName(const std::string& symbol);

// The function a -ffunction-sections input section holds (".text.gram_", ".text.unlikely.foo"
// -> "gram_", "foo"), or "" for a compilation unit's shared sections (".text", ".text.startup").
std::string functionOfSection(std::string_view section);

// What a listing and an object are matched by: the base name without directory, archive,
// object suffix and source suffix ("CMakeFiles/simp.dir/simp.c.o", "libk.a(simp.o)", "simp.c",
// "out/simp.lis" -> "simp").
std::string moduleKey(std::string_view name);

struct PlacedListing {
    size_t unit = 0; // index into map.modules
    LineTable table; // text: the lines the listing carries
    std::vector<debuginfo::Instruction> code; // the listing's code lines, placed as table's ranges are
    std::vector<std::string> notes; // listing sections the linker left out (discarded COMDAT, gc)
    bool temporary = false; // the unit is a compiler temporary (isCompilerTemporary), matched by sizes
};

// True for the object gcc's driver makes when it compiles and links in one command
// (`cc -o prog file.c`: /tmp/ccXXXXXX.o), which the map names instead of the source.
bool isCompilerTemporary(std::string_view objectName);

// Finds the compilation unit of `map` a listing was made for (by name, then PPE's rule: every
// code section of the unit must have the size the listing shows; when no unit has the name, the
// one compiler temporary object whose sections have the listing's sizes) and places the listing's code
// ranges at the addresses the map gives those sections. The error says why no unit fits.
Result<PlacedListing> placeListing(
    const listparse::Listing& listing, const std::string& listingPath, const mapparse::LinkMap& map);

} // namespace ppe::formatter
