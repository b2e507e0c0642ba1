// Machine code as text through LLVM's MC disassembler, for `ppeout --asm` where no compiler
// listing gives the instructions. Only the targets linked here: x86-64 (and i386) and AArch64.
#pragma once

#include "ppe/debuginfo/debug_info.h"
#include "ppe/support/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ppe::debuginfo {

// One instruction, or one line of a listing that put bytes into code (formatter/ keeps a
// listing's lines in the same shape).
struct Instruction {
    uint64_t address = 0; // link-time
    uint64_t size = 0;
    std::string text; // "imul %esi, %eax": AT&T syntax on x86, as objdump and perf show it
};

// The instructions of `ranges` (link-time, sorted) in the ELF file at `path`, decoded from each
// range's start; bytes that decode to no instruction are one-byte "(bad)" rows, as objdump shows
// them, so that the instructions cover every byte of the code. Bytes outside any code section are
// left out. An error names the file: unreadable, or a machine no linked LLVM target decodes.
Result<std::vector<Instruction>> disassemble(const std::string& path, const std::vector<AddressRange>& ranges);

} // namespace ppe::debuginfo
