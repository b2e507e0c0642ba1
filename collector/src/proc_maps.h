// /proc/self/maps, read with raw system calls into caller-provided memory (signal-safe).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ppe {

struct Mapping {
    uintptr_t start;
    uintptr_t end;
    uint64_t offset; // file offset of `start`
    uint32_t path; // offset into the path arena; 0 = anonymous (the arena starts with "")
    bool executable;
    bool readable;
};

struct MapsTable {
    Mapping* mappings; // capacity `mappingCapacity`
    size_t mappingCapacity;
    size_t mappingCount;
    char* paths; // arena of '\0'-terminated paths, capacity `pathCapacity`
    size_t pathCapacity;
    size_t pathUsed;
    bool truncated; // some mappings or paths did not fit
};

inline constexpr size_t kMaxMappings = 16384;
inline constexpr size_t kPathArena = 1 << 20;

// Memory for one reading of /proc/self/maps (mapped before it is needed: nothing is allocated
// while reading).
struct MapsScratch {
    Mapping mappings[kMaxMappings];
    char paths[kPathArena];
};

// Field `field` (1-based, a decimal one after the command) of a /proc/PID/stat text of `size` bytes;
// the fields after the command name, which may hold spaces and parentheses, follow its last ')'.
// 0 where the text has no such field.
uint64_t statField(const char* stat, size_t size, int field);

// Fills `table` from /proc/self/maps, in address order. Returns false if the file cannot be read.
bool readMaps(MapsTable* table);

// Points `table` at `scratch` and fills it from /proc/self/maps. Signal-safe.
bool readMapsInto(MapsScratch& scratch, MapsTable* table);

// The mapping that contains `address`, or nullptr.
const Mapping* findMapping(const MapsTable& table, uintptr_t address);

} // namespace ppe
