// What a report reads: the profile, listings named by arguments and patterns, the executable's
// DWARF under the build-id rule, and the code of shared objects. Messages come back as values
// for the program to print.
#pragma once

#include "ppe/debuginfo/debug_info.h"
#include "ppe/debuginfo/disassembly.h"
#include "ppe/formatter/debug_sources.h"
#include "ppe/formatter/messages.h"
#include "ppe/formatter/report.h"
#include "ppe/mapparse/link_map.h"
#include "ppe/profile/input_file.h"
#include "ppe/support/result.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ppe::formatter {

// The most a linker map may hold (the largest programs' maps are some hundreds of MB): a device
// named as the map ends there, not in memory exhaustion.
inline constexpr uint64_t kMaxMapBytes = uint64_t(4) << 30;
inline constexpr uint64_t kMaxListingBytes = uint64_t(4) << 30; // a listing, likewise

// The profile a report is made of: a .ppe file, or the NAME.ppe.PID.live file of a killed run
// (recovered); a directory or a shell pattern among `paths` names many (profileFiles), which are
// merged one at a time (merge_profiles.h; notes on re-binning go to `messages`). The error names
// the file, and says so when it looks like a linker map (arguments in the wrong order). With many,
// `progress` is called before each is read (done counts from 1). Of many, a file that cannot be
// read is skipped with a warning (Profile::skippedProfiles), or with `strict` is the error.
Result<Profile> readProfiles(const std::vector<std::string>& paths, Messages& messages,
    const std::function<void(size_t done, size_t total)>& progress = {}, bool strict = false);
Result<Profile> readProfiles(const std::vector<std::string>& paths);

// One .ppe file, or a live file recovered; a file that is not regular only when Named
// (input_file.h).
Result<Profile> readProfileFile(const std::string& path, InputOrigin origin = InputOrigin::Named);

// Named when `path` is one of the profile `arguments` itself; Found when a directory or a pattern
// among them gave it.
InputOrigin originOf(const std::string& path, const std::vector<std::string>& arguments);

struct LineSources {
    std::vector<LineTable> tables;
    std::vector<std::vector<std::string>> baseDirs; // per table: where its relative file names start
    // Per table: a listing's code lines (--asm), by address; none for DWARF tables (shorter than
    // `tables` when DWARF filled the gaps): their code is disassembled.
    std::vector<std::vector<debuginfo::Instruction>> code;
};

struct ListingRequest {
    std::vector<std::string> arguments; // listing names and shell patterns
    std::vector<std::string> inputs; // the map and the profile: never taken for listings
    std::string output; // the report: skipped when a pattern matches it
    bool verbose = false; // say which listing went where
};

// Expands the patterns (as PPEOUT expanded VMS wildcards), reads each listing, matches it to its
// compilation unit in `map` and gives that unit's modules (unitOf[m] is module m's unit) its line
// table. What is not a listing (the report itself, sources, maps), listings of other builds and
// damaged listings are skipped with a message; the rest is used.
LineSources loadListings(const ListingRequest& request, const mapparse::LinkMap& map, std::vector<CodeModule>& modules,
    const std::vector<size_t>& unitOf, Messages& messages);

struct ImageRequest {
    std::string exe; // --exe, or "" for the image the profile names
    std::string profilePath; // for messages
    std::vector<std::string> debugDirs; // before /usr/lib/debug
    bool required = false; // no map: the report is made from it, so a problem is an error
    bool ignoreBuildId = false;
    bool verbose = false;
    // Read DWARF units whole only where they hold this code (debuginfo::Options::onlyWanted; the
    // others give their names and ranges alone), and with `lines` their line tables too.
    std::optional<std::vector<debuginfo::AddressRange>> wanted = {};
    bool lines = true;
};

// The link-time code the profile's image took samples in (its bins), or blocked threads waited in
// and the call paths passed through (blockedCode: the places named); sorted, merged.
std::vector<debuginfo::AddressRange> sampledCode(const Profile& profile);
std::vector<debuginfo::AddressRange> blockedCode(const Profile& profile);

// `image` (read by loadImage without lines) read again, its units that hold `wanted` (sorted,
// merged) whole and with their line tables; its warnings not given before become warnings.
Result<debuginfo::DebugInfo> loadImageLines(const debuginfo::DebugInfo& image,
    const std::vector<std::string>& debugDirs, std::vector<debuginfo::AddressRange> wanted, Messages& messages);

// The executable's symbols and DWARF when its build id is the profile's. An error when `required`
// (or --exe named it) and it cannot be used; otherwise nullopt and, in verbose mode, a note why.
Result<std::optional<debuginfo::DebugInfo>> loadImage(
    const ImageRequest& request, const Profile& profile, Messages& messages);

// The file offsets of `object` that a report of `profile` names: its samples', and the blocked
// places' in it (debuginfo::Options::wantedOffsets), ascending.
std::vector<uint64_t> namedOffsets(const Profile& profile, const SharedObject& object);

// A shared object's symbols and DWARF (with `lines` its line tables), if the file is still the
// one the run loaded (same build id). Read lazily, as the executable is: only the units that hold
// namedOffsets(profile, object) give their functions and lines (the rest their names and
// ranges), and its code without symbols is named only there; whole when its modules are to be by
// source file (`by`, or Auto and link-time partitions; Function: the function table alone).
// Every named offset is named as by a whole read.
Result<debuginfo::DebugInfo> loadObjectInfo(const SharedObject& object, const Profile& profile,
    const std::vector<std::string>& debugDirs, bool lines, ModuleKind by);

// A shared object's functions, if the file is still the one the run loaded (same build id).
Result<ObjectCode> sharedObjectCode(
    const SharedObject& object, const Profile& profile, const std::vector<std::string>& debugDirs);

// True when both paths name the same existing file.
bool sameFile(const std::string& a, const std::string& b);

// The first `count` bytes of a regular file ("" when it cannot be read or is not regular: a FIFO's
// bytes are left for the reader that needs them).
std::string readPrefix(const std::string& path, size_t count);

} // namespace ppe::formatter
