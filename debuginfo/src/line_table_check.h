// A check of DWARF line table headers before LLVM 14 parses them.
#pragma once

#include <llvm/ADT/StringRef.h>

#include <cstdint>

namespace ppe::debuginfo {

// Whether LLVM 14 can parse the line table header at `offset` of `section` (.debug_line,
// decompressed) without crashing: its DWARF 5 directory and file entry formats may only use forms
// LLVM's extractValue handles there (llvm-dwarfdump-14 --debug-line itself crashes on a header
// with form 0; found by fuzz/fuzz_elf).
bool lineTableHeaderIsSafe(llvm::StringRef section, uint64_t offset, bool littleEndian);

} // namespace ppe::debuginfo
