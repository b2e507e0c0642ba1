// Opening an ELF file through LLVM Object, and what is read straight from its headers and
// sections: the build id, the PT_LOAD segments, whether it carries DWARF.
#pragma once

#include "ppe/debuginfo/debug_info.h"

#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>

#include <optional>
#include <string>
#include <vector>

namespace ppe::debuginfo {

namespace obj = llvm::object;

// LLVM's text for an error, which is consumed.
std::string message(llvm::Error error);

struct OpenedElf {
    obj::OwningBinary<obj::ObjectFile> binary;
    const obj::ELFObjectFileBase* elf = nullptr;
};

// The ELF file at `path`; errors name the file and say what it is instead.
Result<OpenedElf> openElf(const std::string& path);

// The bytes of the first section called `name`, as stored (still compressed, if it is).
std::optional<llvm::StringRef> sectionContents(const obj::ObjectFile& o, llvm::StringRef name);

// The contents of the DWARF section `name` (".debug_line"), decompressed when it is stored
// compressed (SHF_COMPRESSED with zlib, or GNU's .zdebug_line); `storage` keeps decompressed bytes.
// Empty when there is no such section; an error (without a file name) when it cannot be
// decompressed.
Result<llvm::StringRef> debugSectionContents(const obj::ObjectFile& o, llvm::StringRef name, std::string& storage);

// Why the compressed debug sections of `o` cannot be read, or "": zstd (LLVM reads it from
// version 16 only), or a damaged compression header (a size no zlib stream of that length holds).
std::string compressionProblem(const obj::ObjectFile& o);

// Whether `o` has a non-empty .debug_info (or GNU-compressed .zdebug_info).
bool hasDwarf(const obj::ObjectFile& o);

// Lower-case hex of NT_GNU_BUILD_ID, "" if there is none.
std::string buildIdOf(const obj::ELFObjectFileBase& elf);

// The PT_LOAD program headers.
std::vector<Segment> segmentsOf(const obj::ELFObjectFileBase& elf);

// Whether `address` is code really in the program: inside an executable segment (discarded
// functions keep address 0 or a tombstone in DWARF). True when there are no segments.
bool isLoadedCode(const std::vector<Segment>& segments, uint64_t address);

// Calls `f(o)` with `elf` as its concrete ELFObjectFile<ELFT> type.
template <class F> void withElfType(const obj::ELFObjectFileBase& elf, F&& f)
{
    if (const auto* o = llvm::dyn_cast<obj::ELF64LEObjectFile>(&elf))
        f(*o);
    else if (const auto* o = llvm::dyn_cast<obj::ELF32LEObjectFile>(&elf))
        f(*o);
    else if (const auto* o = llvm::dyn_cast<obj::ELF64BEObjectFile>(&elf))
        f(*o);
    else if (const auto* o = llvm::dyn_cast<obj::ELF32BEObjectFile>(&elf))
        f(*o);
}

} // namespace ppe::debuginfo
