// The formatter's entry point: everything a report is made of, in one request, to the report
// model (report.h) that every renderer draws.
#pragma once

#include "ppe/formatter/call_paths.h"

#include "ppe/formatter/debug_sources.h"
#include "ppe/formatter/messages.h"
#include "ppe/formatter/report.h"
#include "ppe/support/result.h"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::formatter {

struct ReportRequest {
    std::string map; // the linker map, or "" for modules and lines from the executable's DWARF
    std::vector<std::string> profiles; // .ppe (or .live) files, read by readProfiles (inputs.h)
    std::vector<std::string> listings; // with a map: compiler listings, names or shell patterns
    std::string output; // where the report goes: never taken for a listing ("" or "-": nowhere)
    std::string exe; // the executable, or "" for the image the profile names
    // Compile units, functions (with a map: its units split by the image's symbols) or source files
    // (from DWARF, with or without a map); Auto: units, or source files where the units are
    // link-time partitions (-flto: the map's *.ltrans*.o, lto.tmp; DWARF's "<artificial>").
    ModuleKind by = ModuleKind::Auto;
    double lineThreshold = 1.0; // % of the in-range hits a module needs for its program text
    double objectThreshold = 1.0; // % of all samples a shared object needs to be listed
    size_t topFunctions = 5; // functions (and addresses without one) listed per shared object
    size_t callFunctions = 20; // functions with their callers and callees in the call paths' section
    CallFocus callFocus; // --callers FUNC, --callees FUNC: those functions alone, every caller or callee
    // Shared objects (path, file name or name without version, objectNameMatches) to give units or
    // functions and program text from their DWARF whatever their share; those with at least
    // lineThreshold % of all samples get them anyway.
    std::vector<std::string> objectLines;
    // A shared object (named as objectLines are) whose samples the report is made of, as if it had
    // been the monitored image (`ppe --object`): for one that was dlopen'ed, or not asked for.
    std::string object;
    std::vector<std::string> sourceDirs; // where else to look for program text
    std::vector<std::string> debugDirs; // where to look for split debug files before /usr/lib/debug
    bool ignoreBuildId = false; // use an executable of another build than the profile's
    bool ignoreMapMismatch = false; // format with a map that does not fit the profile (map_check.h), warning
    bool verbose = false; // notes on which listing went where and what DWARF was used
    bool strict = false; // --strict: a damaged profile among many is an error, not skipped with a warning
    // --asm: the instructions of each line with hits, from its listing or the disassembled executable
    // (instructions.h).
    bool instructions = false;
    // Called as each phase starts ("reading DWARF"; "reading sources" with done of total), for a
    // progress line (progress.h); empty: nothing is reported.
    std::function<void(std::string_view phase, size_t done, size_t total)> progress;
};

// Makes the report: with a map, its units (or -ffunction-sections functions) are the modules,
// the listings give them lines and the executable's DWARF fills the gaps; without one, the
// executable's DWARF and symbols give modules and lines. Then hits per module, the program text
// of the modules over the line threshold and the shared objects over theirs. Notes and warnings
// go to `messages` in the order they arise (the report's own warnings are in Report::warnings);
// an input that cannot be used is the error, naming its file.
Result<Report> makeReport(const ReportRequest& request, Messages& messages);

} // namespace ppe::formatter
