// The loaded object a profile monitors (normally the main executable): where its code is at link
// time, where it was loaded, and its build id.
#pragma once

#include "ppe/core/elf_note.h"
#include "ppe/core/profile_record.h"

#include <climits>
#include <cstdint>
#include <elf.h>
#include <link.h>

namespace ppe {

struct ObjectImage {
    uintptr_t bias = 0; // run-time address = link-time address + bias
    uint64_t codeStart = 0; // executable PT_LOAD segments, link-time [codeStart, codeEnd)
    uint64_t codeEnd = 0;
    uintptr_t loadedStart = 0; // all PT_LOAD segments, run-time [loadedStart, loadedEnd)
    uintptr_t loadedEnd = 0;
    char path[PATH_MAX] = {};
    uint8_t buildId[64] = {};
    uint32_t buildIdSize = 0;
};

// The main executable. Not signal-safe (uses dl_iterate_phdr).
bool findMainImage(ObjectImage* image);
// The loaded object whose segments contain `address`. Not signal-safe.
bool findImageContaining(uintptr_t address, ObjectImage* image);
// The loaded shared object `name` names (PPE_OBJECT): its file name or soname as the loader has it
// (libfoo.so.1), the name without its version (libfoo.so), or the name of the file that path
// leads to (libfoo.so.1.2.3); image->path is then that file's real path. Not signal-safe.
bool findNamedImage(const char* name, ObjectImage* image);

// True when a PT_LOAD segment of the loaded object `info` holds `address`. Signal-safe.
bool objectContains(const dl_phdr_info* info, uintptr_t address);

// The code sections (SHF_ALLOC | SHF_EXECINSTR) of the ELF file at `path`, from its section
// headers, in header order: at most `capacity` into `out`; returns how many. 0 when the file
// cannot be read or has no section headers (stripped with sstrip). Reads the file once with
// pread into the stack; for the start of a run, never the sampling path. Allocates nothing.
uint32_t readCodeSections(const char* path, CodeSection* out, uint32_t capacity);

// The note every copy of the collector carries (name "PPE", type "PPE1"; first_collector.cc).
inline constexpr uint32_t kPpeNoteType = 0x50504531;

// Finds the first note of `type` whose name is `name` in the notes at run-time [start, end),
// never reading past `end` (a damaged note stops the walk; core/elf_note.h). Signal-safe.
bool findNote(uintptr_t start, uintptr_t end, uint32_t type, const char* name, ElfNote* out);

// Reads the NT_GNU_BUILD_ID note through program headers of an object loaded with `bias`,
// touching only [readableStart, readableEnd). Signal-safe.
uint32_t readBuildId(const ElfW(Phdr) * phdrs, unsigned count, uintptr_t bias, uintptr_t readableStart,
    uintptr_t readableEnd, uint8_t* out, uint32_t capacity);

// The build id of an ELF object whose first page (file offset 0) is mapped readable at
// [start, end). Signal-safe.
uint32_t readBuildIdOfMapping(uintptr_t start, uintptr_t end, uint8_t* out, uint32_t capacity);

} // namespace ppe
