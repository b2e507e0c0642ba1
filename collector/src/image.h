// The loaded object a profile monitors (normally the main executable): where its code is at link
// time, where it was loaded, and its build id.
#pragma once

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

// Reads the NT_GNU_BUILD_ID note through program headers of an object loaded with `bias`,
// touching only [readableStart, readableEnd). Signal-safe.
uint32_t readBuildId(const ElfW(Phdr) * phdrs, unsigned count, uintptr_t bias, uintptr_t readableStart,
    uintptr_t readableEnd, uint8_t* out, uint32_t capacity);

// The build id of an ELF object whose first page (file offset 0) is mapped readable at
// [start, end). Signal-safe.
uint32_t readBuildIdOfMapping(uintptr_t start, uintptr_t end, uint8_t* out, uint32_t capacity);

} // namespace ppe
