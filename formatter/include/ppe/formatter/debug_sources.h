// Address sources from an ELF file's symbols and DWARF (debuginfo/): compile units or functions
// as modules, DWARF line tables, and the functions of shared objects.
#pragma once

#include "ppe/debuginfo/debug_info.h"
#include "ppe/formatter/report.h"

#include <string>
#include <vector>

namespace ppe::formatter {

struct DebugModules {
    std::vector<CodeModule> modules;
    std::vector<LineTable> tables; // CodeModule::lineTable indexes these
    std::vector<std::vector<std::string>> baseDirs; // per table: the compilation directory
};

// True when DWARF's compile units with code are link-time partitions (gcc -flto names each
// "<artificial>"), not source files.
bool hasArtificialUnits(const debuginfo::DebugInfo& info);

// `asked`, with Auto resolved: File where the units are link-time partitions, else Unit.
ModuleKind chooseModuleKind(const debuginfo::DebugInfo& info, ModuleKind asked);

// Modules from DWARF: compile units (named by their file's base name, or its path where two
// share one) or functions (DWARF subprograms, demangled); code that no DWARF describes gets a
// module per function of the symbol table. Each unit's DWARF lines become its line table, with
// the unit's own file first and inlined code marked with the function it was inlined into.
// By file, a module is the functions whose entry line (their first line of code not inlined
// from elsewhere) is in that file, named like units, with a line table of its own; code inlined
// into them stays theirs, under the callee's file in the table. Auto is resolved
// (chooseModuleKind).
DebugModules modulesFromDebugInfo(const debuginfo::DebugInfo& info, ModuleKind kind);

// Gives the modules that have no line table (no listing) the DWARF lines of their code: DWARF
// fills the gaps a map and listings leave. Returns how many modules got one.
size_t fillLineTables(const debuginfo::DebugInfo& info, std::vector<CodeModule>& modules,
    std::vector<LineTable>& tables, std::vector<std::vector<std::string>>& baseDirs);

// A map's units split into the image's functions (--by function with a map): each function's code
// inside a unit becomes a module "NAME (UNIT)" whose unitOf is the unit's (so that the unit's
// listing serves it); what no function owns (padding) stays with the unit. Function modules of a
// -ffunction-sections map are left as they are.
void splitUnitsByFunctions(
    const debuginfo::DebugInfo& info, std::vector<CodeModule>& modules, std::vector<size_t>& unitOf);

// A shared object's functions and segments, for its samples by file offset.
ObjectCode objectCodeOf(const debuginfo::DebugInfo& info);

} // namespace ppe::formatter
