// The weighted call tree the simulated ARC machine runs (calls.tree is the format's example and
// description), placed on the function symbols of a real ARC executable: each function's address
// and size come from the ELF symbol table, the work per call and the calls from the tree file.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::arc::sim {

struct FunctionSymbol {
    std::string name;
    uint32_t address = 0;
    uint32_t size = 0;
};

// The STT_FUNC symbols with a size of a 32-bit little-endian ELF file (an ARC executable); errors
// name the file. The project's ELF reader (elf_image.h) reads segments, not symbols.
Result<std::vector<FunctionSymbol>> readFunctionSymbols(const std::string& path);

struct CallEdge {
    size_t callee = 0; // index into CallTree::functions
    uint64_t times = 0; // per call of the caller
};

struct TreeFunction {
    std::string name;
    uint64_t instructions = 0; // own instructions per call
    uint32_t cycles = 1; // per own instruction
    bool kernel = false;
    unsigned recurse = 1; // most activations at once
    std::vector<CallEdge> calls; // in order
    uint32_t address = 0, size = 0; // from the symbol
};

struct CallTree {
    std::vector<TreeFunction> functions;
    size_t root = 0;
    // The index of the function named `name`, or functions.size().
    size_t find(std::string_view name) const;
};

// The tree file's text; `path` names it in errors ("PATH:LINE: message").
Result<CallTree> parseCallTree(std::string_view text, const std::string& path);
Result<CallTree> readCallTree(const std::string& path);

// Gives each function of `tree` its symbol's address and size; an error names a function without
// a symbol, or one too small for the machine's layout of its code (machine.h).
Result<std::monostate> placeFunctions(CallTree& tree, const std::vector<FunctionSymbol>& symbols);

} // namespace ppe::arc::sim
