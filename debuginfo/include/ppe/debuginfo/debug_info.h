// ELF symbols and DWARF through LLVM's Object and DebugInfo libraries: what the formatter needs to
// attribute samples without a linker map — compile units, functions, source lines, and where a
// shared object's file offsets are loaded. Errors are values; nothing here prints.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ppe::debuginfo {

struct AddressRange {
    uint64_t start; // link-time virtual address
    uint64_t end; // exclusive
};

struct CompileUnit {
    std::string name; // DW_AT_name as the compiler wrote it ("simp.c", "/abs/dir/x.f90")
    std::string compDir; // DW_AT_comp_dir
    std::string producer; // DW_AT_producer
    std::vector<AddressRange> ranges; // sorted, merged, without empty ones
    // Its functions and line rows were read: false when Options::only left it out (no wanted
    // address in its ranges), and DebugInfo holds only the unit itself.
    bool detailed = true;
};

struct Function {
    std::string name; // demangled C++ name; C and Fortran names as they are
    std::string linkageName; // the symbol name when it differs from `name`, else ""
    std::vector<AddressRange> ranges; // sorted; a .cold part is one of them
    int unit = -1; // CompileUnit index; -1 when it comes from the symbol table only
    // DW_AT_decl_line when known. DW_AT_decl_file is not read: LLVM 14's getDeclFile parses the
    // line table without the checks loadDebugInfo makes first, and under gcc -flto the attribute
    // is the abstract subprogram's, in the compile-time unit (DW_AT_abstract_origin across units),
    // whose line table its number indexes. A function's file is its entry line's (fileModules).
    int line = 0;
    bool fromSymbols = false; // no DWARF describes it: from .symtab, else .dynsym
    bool fromFrames = false; // no symbol either: the code of one .eh_frame FDE, named func_0xADDRESS
};

// Consecutive rows of a DWARF line table: [start, end) comes from `line` of `file`.
struct LineRange {
    uint64_t start;
    uint64_t end;
    int file; // index into DebugInfo::files
    int line; // 0: code the compiler made up (no source line)
    int function = -1; // the outermost Function containing `start`, -1 if none
    bool inlined = false; // `start` is inside inlined code: file and line are that code's own
};

// A PT_LOAD program header.
struct Segment {
    uint64_t fileOffset;
    uint64_t address;
    uint64_t fileSize;
    uint64_t memSize;
    bool executable;
};

struct DebugInfo {
    std::string path; // the ELF asked for
    std::string debugPath; // where the DWARF came from: == path, a split debug file, or "" (none)
    std::string buildId; // lower-case hex of NT_GNU_BUILD_ID, "" if none
    std::vector<Segment> segments;
    std::vector<CompileUnit> units; // sorted by lowest address
    std::vector<Function> functions; // sorted by lowest address
    std::vector<std::string> files; // full paths
    std::vector<LineRange> lines; // sorted by start, non-overlapping
    std::vector<std::string> warnings; // damaged DWARF: what was skipped

    // The link-time address a file offset is loaded at (executable segments), or false.
    bool addressOfFileOffset(uint64_t offset, uint64_t& address) const;
    // The function whose ranges hold `address`, or nullptr.
    const Function* functionAt(uint64_t address) const;
};

struct Options {
    // Where split debug files are looked for (ROOT/.build-id/xx/rest.debug, ROOT/DIR/debuglink).
    std::vector<std::string> debugRoots = { "/usr/lib/debug" };
    bool lines = true; // read the line tables (a shared object's function table does not need them)
    // Read the DWARF in a child process: LLVM 14 crashes on some damaged DWARF, and then only the
    // symbols are read (with a warning). Off in the fuzz target, which looks for such crashes.
    bool isolate = true;
    // Read the functions, inlined code and line tables only of the units whose code meets one of
    // `wanted` (the profile's sampled bins): the formatter's cost then follows the samples, not the
    // size of the binary. Every unit's name, directory, producer and ranges are read still (from
    // its top DIE). A unit without ranges is read whole (where its code is is unknown).
    bool onlyWanted = false;
    std::vector<AddressRange> wanted; // sorted by start, non-overlapping
    // A shared object's file offsets that the report names (its samples' and blocked places'):
    // code no symbol names is then split by .eh_frame only there (the FDEs that hold them), not
    // everywhere. With onlyWanted their link-time addresses (found through the executable
    // segments, which the caller does not know) take `wanted`'s place, so only the units that
    // hold one are read whole, and only the symbols that hold one become functions (the caller
    // names no other code); without it the DWARF and the symbols are read whole. Unset: `wanted`
    // decides (all of .eh_frame without onlyWanted).
    std::optional<std::vector<uint64_t>> wantedOffsets;
};

// Reads the ELF at `path` and its DWARF (in it, or in a split debug file found by build id or
// .gnu_debuglink). Errors name the file. Forks (Options::isolate): call from one thread.
Result<DebugInfo> loadDebugInfo(const std::string& path, const Options& options = {});

// Only the build id ("" when there is none).
Result<std::string> readBuildId(const std::string& path);

} // namespace ppe::debuginfo
