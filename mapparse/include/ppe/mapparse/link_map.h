// Linker maps -> the compilation units that own code: a pure parser from the text a linker
// writes with -Map (GNU ld, gold, lld, mold) to modules with their code sections.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::mapparse {

enum class Dialect { GnuLd, Gold, Lld, Mold };

// One input section of code as the linker placed it, in link-time addresses.
struct Section {
    std::string name; // input section: ".text", ".text.startup.main", ".text._Z3foov", ".init"
    std::string outputSection; // the output section it went to: ".text", ".init", ".fini"
    uint64_t address = 0;
    uint64_t size = 0; // never 0: empty input sections are dropped
    uint64_t end() const { return address + size; }
};

// A compilation unit (an object file or an archive member) that owns code. With
// -ffunction-sections it owns one section per function; a caller wanting per-function modules
// splits `sections`.
struct Module {
    std::string name; // what a user recognises: "simp.o", "libx.a(y.o)", "crti.o"
    std::string path; // the object exactly as the map shows it
    std::vector<Section> sections; // sorted by address, at least one

    uint64_t start() const; // lowest address of its code
    uint64_t end() const; // one past its highest code byte
    uint64_t codeSize() const; // bytes it owns; less than end() - start() when others' code lies between
};

struct LinkMap {
    Dialect dialect = Dialect::GnuLd;
    std::vector<Module> modules; // code modules only, sorted by start address
    std::string outputFile; // the file the link wrote, where the map names it (GNU ld's OUTPUT line), else ""
};

// Parses the text of a linker map. Only code counts: input sections named .text, .text.*,
// .init, .fini (and .gnu.linkonce.t.*, .ltext*) from real objects. PLT and other linker-made
// pieces, fill, discarded and empty sections are left out. Truncated maps, other kinds of file
// and maps without code are errors; `fileName` is used in their messages only.
Result<LinkMap> parseLinkMap(std::string_view text, std::string_view fileName);

// Reads and parses the map at `path`.
Result<LinkMap> readLinkMap(const std::string& path);

// True for an object the linker's LTO plugin made from the program's intermediate code: a
// link-time partition, whose code comes from any number of source files. gcc -flto names them
// ccXXXXXX.ltransN.ltrans.o (NAME.ltransN.ltrans.o with -save-temps) under GNU ld, gold and mold;
// clang -flto and -flto=thin give lld's "lto.tmp" and, through LLVMgold (gold, mold),
// /tmp/lto-llvm-XXXXXX.o.
bool isLinkTimePartition(std::string_view path);

// How many of the map's modules are link-time partitions.
size_t linkTimePartitions(const LinkMap& map);

// "GNU ld", "gold", "lld", "mold".
std::string_view dialectName(Dialect dialect);

} // namespace ppe::mapparse
