// The call graph an ARC image's code shows (issue 37: the descent's graph "from static `bl`/`jl`
// targets in the image"): each function of the symbol table is decoded instruction by instruction
// (instruction.h); a call whose target the bytes give (`bl`, `bl_s`, `jl` with a long immediate) is
// an edge to the function holding the target. What the bytes cannot show is marked so that the
// descent's bound is never trusted where it does not hold: a function whose address appears other
// than as a call target (a long immediate of another instruction, a word of a data segment: a
// function pointer; the addend of a relocation, as a PIC object's pointers are; a function a shared
// object exports, which other objects call) is reached indirectly.
#pragma once

#include "ppe/arc/descent.h"
#include "ppe/arc/elf_image.h"

#include <string>

namespace ppe::arc {

struct StaticGraphStats {
    size_t functions = 0, instructions = 0, calls = 0, indirectCalls = 0, addressTaken = 0;
    size_t undecoded = 0; // functions whose bytes stopped decoding before their end
};

// The functions of `path` as the graph names them: one per address (aliases: the first name), a
// repeated name (static functions of two files) followed by "@0xADDRESS"; in the graph's order.
Result<std::vector<ElfFunction>> graphFunctions(const std::string& path);

// The graph of the ARC ELF at `path` (an error for another machine: the decoder reads ARCv2).
Result<CallGraph> staticCallGraph(const std::string& path, StaticGraphStats* stats = nullptr);

} // namespace ppe::arc
