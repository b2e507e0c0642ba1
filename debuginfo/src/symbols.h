// Function symbols of .symtab and .dynsym, and the PLT sections, one per address.
#pragma once

#include "elf_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ppe::debuginfo {

struct Symbol {
    uint64_t address;
    uint64_t size;
    std::string name;
    int rank; // lower is better: global, weak, local, a section
    uint64_t sectionEnd; // the end of the symbol's section
};

// The function symbols for `elf`: its own .symtab, else the one of its split debug file
// (`debugFile`, may be null); its .dynsym; its PLT sections ("[.plt]"). One symbol per address
// (aliases: global before weak before local, then the fewest leading underscores, then the
// shortest name), sorted by address; size-0 symbols reach to the next symbol.
std::vector<Symbol> readSymbols(const obj::ELFObjectFileBase& elf, const obj::ELFObjectFileBase* debugFile);

} // namespace ppe::debuginfo
