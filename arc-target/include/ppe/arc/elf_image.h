// What ppe-arc needs to know of the program it samples, read from its ELF file (`--elf`) or a
// shared object named by the server's library list: the executable segments (the monitored range),
// the machine, the entry point (which with the target's auxiliary vector gives the load bias), the
// build id. Read with <elf.h> alone, ELF32 and ELF64 of either byte order: LLVM has no ARC target.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ppe::arc {

struct ElfSegment {
    uint64_t fileOffset;
    uint64_t address;
    uint64_t fileSize;
    uint64_t memSize;
    bool executable;
};

struct ElfImage {
    std::string path;
    bool is64 = false;
    bool bigEndian = false;
    bool shared = false; // ET_DYN: a PIE or a shared object, loaded at a bias
    uint16_t machine = 0; // e_machine
    uint64_t entry = 0;
    std::vector<ElfSegment> segments; // PT_LOAD, in file order
    std::string buildId; // the NT_GNU_BUILD_ID bytes, raw
    uint64_t buildIdAddress = 0; // link-time address of those bytes in the image (0: not loaded)
    std::string entryBytes; // up to 16 bytes of the file at the entry point (what the target must hold there)

    // The executable segments' span [start, end) in link-time addresses; false when none.
    bool executableRange(uint64_t& start, uint64_t& end) const;
    // The file offset of a link-time address inside a segment; false when none holds it.
    bool fileOffsetOf(uint64_t address, uint64_t& offset) const;
};

// The ELF file at `path`; errors name the file.
Result<ElfImage> readElfImage(const std::string& path);

// A function of the ELF's symbol table (STT_FUNC with a size, defined).
struct ElfFunction {
    std::string name;
    uint64_t address = 0; // link-time
    uint64_t size = 0;
};

// The functions of `path`'s .symtab (its .dynsym when stripped), by address; errors name the file.
Result<std::vector<ElfFunction>> readElfFunctions(const std::string& path);

// A data object of the ELF's symbol table (STT_OBJECT with a size, defined): the same fields.
using ElfObject = ElfFunction;

// The data object `name` of `path` (--scratch and --aux-stub SYMBOL); errors name the file.
Result<ElfObject> readElfObject(const std::string& path, const std::string& name);

// True when `path`'s symbol table names `name` undefined: a function of another object it calls
// (pthread_create: the program can start threads).
Result<bool> elfImports(const std::string& path, const std::string& name);

// Code addresses that may be reached other than by the calls the code shows, from what the dynamic
// linker reads: the addends of RELA relocations (a pointer a PIC object's data will hold), the
// values of the symbols relocations other than jump slots name, and in a shared object (ET_DYN)
// every function it exports (another object may call it). Unsorted, with repeats.
Result<std::vector<uint64_t>> readElfPointedAddresses(const std::string& path);

// `uname -m`'s word for an e_machine ("x86_64", "aarch64", "arc", ...), "machine N" otherwise.
std::string machineName(uint16_t machine);
// The smallest instruction of the machine in bytes (1 on x86, 2 on ARC and compressed RISC-V, 4
// on AArch64).
uint32_t machineGranularity(uint16_t machine);

} // namespace ppe::arc
