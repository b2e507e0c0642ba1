// ELF notes (a SHT_NOTE section or PT_NOTE segment: 12-byte headers, name and descriptor each
// padded to 4 bytes): the one parser of the collector, ppe-arc and the debug-info reader (issue
// 38: three had drifted on bounds and on the name's NUL). Pure, no allocation: part of libppe.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ppe {

// A note's descriptor: bytes inside the notes it was found in.
struct ElfNote {
    const uint8_t* desc;
    uint32_t size;
};

inline constexpr uint32_t kGnuBuildIdNote = 3; // NT_GNU_BUILD_ID, named "GNU"
inline constexpr bool kNativeBigEndian = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;

// Finds the first note of `type` named `name` (its NUL included) among the `size` bytes at
// `notes`, fields in the given byte order; `notes` need not be aligned. Never reads outside those
// bytes: a note whose name or descriptor would run past them (truncated, or sizes near 2^32) ends
// the walk, false. The padding after the last descriptor may be missing. Signal-safe.
bool findElfNote(const uint8_t* notes, size_t size, bool bigEndian, uint32_t type, const char* name, ElfNote* out);

// The NT_GNU_BUILD_ID note among `notes`: its descriptor is the build id (empty: none).
bool findBuildIdNote(const uint8_t* notes, size_t size, bool bigEndian, ElfNote* out);

} // namespace ppe
