// Function symbols of an ELF file (link-time addresses), read with LLVM Object: the independent
// truth that end-to-end tests compare the collector's bins against.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ppe::testing {

struct FunctionSymbol {
    std::string name; // as in the symbol table (mangled for C++)
    uint64_t address;
    uint64_t size;
};

std::vector<FunctionSymbol> functionSymbols(const std::string& path);

// The NT_GNU_BUILD_ID of the file as lower-case hex, "" if it has none.
std::string buildIdOf(const std::string& path);

// The function called exactly `name` (as in the symbol table); fails the test if there is none.
FunctionSymbol findFunction(const std::vector<FunctionSymbol>& symbols, const std::string& name);

} // namespace ppe::testing
