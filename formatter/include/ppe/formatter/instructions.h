// --asm: the instructions under the analysed lines, with hits per instruction (InstructionRow in
// report.h), as `perf annotate` shows them. They come from the module's compiler listing (its own
// code lines, any target) or else from the executable, disassembled (debuginfo/disassembly.h).
#pragma once

#include "ppe/debuginfo/disassembly.h"
#include "ppe/formatter/report.h"

#include <string>
#include <vector>

namespace ppe::formatter {

using Code = std::vector<debuginfo::Instruction>; // sorted by address

// Gives every line with hits in `lines` (the analysis of `module`, whose lines are `table`'s) its
// instructions from `code` with the hits of the profile's bins on their bytes. A bin wider than
// one byte is split among the instructions (and lines) it covers in proportion to the bytes each
// owns, as the line analysis splits it, so a line's instructions sum to the line's hits. Bytes of
// a line that no instruction covers become a row "(no instruction)".
void addInstructions(
    ModuleLines& lines, const Profile& profile, const CodeModule& module, const LineTable& table, const Code& code);

// The instructions of every analysed module of `report`: `listed[t]` for a module whose line table
// t came from a listing (non-empty), else the executable `image` disassembled (once, for all of
// them). Why a module has none goes to `warnings` ("" image: none to disassemble).
void addReportInstructions(Report& report, const std::vector<CodeModule>& modules, const std::vector<LineTable>& tables,
    const std::vector<Code>& listed, const std::string& image, std::vector<std::string>& warnings);

} // namespace ppe::formatter
