// The samples outside the monitored object, kept per run-time PC in the PC table, named when a
// profile is written: category (shared object, vDSO, anonymous code, unknown) and, for a shared
// object, its "object" and "object-hit" records (ppe_writer.h). One piece of code for the
// collector, which places a PC by /proc/self/maps as the profile is written, and for the recovery
// of a killed run, which places it by the mappings the collector thread kept in the live file.
// Plain data, no allocation: signal-safe.
#pragma once

#include "ppe/core/ppe_writer.h"
#include "ppe/core/profile_record.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

// The mapping that held an outside PC.
struct PcPlace {
    const char* path; // its file ("" anonymous, "[vdso]", ...); nullptr: no mapping held the PC
    uint32_t key; // one value per object (e.g. its path's offset in a path arena)
    uint64_t fileOffset; // the PC's offset in the file
};

// The objects and hits of one profile being written, in the caller's memory.
struct ObjectTable {
    ObjectInfo* objects; // `capacity` entries; buildId points at buildIds[i], filled by the caller
    uint32_t* keys; // `capacity` entries: each object's PcPlace::key
    uint8_t (*buildIds)[kMaxBuildId]; // `capacity` entries
    size_t capacity;
    size_t count;
    ObjectCountRecord* hits; // room for one per PC table slot at least
    size_t hitCount;
};

// Counts `count` samples at an outside PC held by `place`: in its category (categoryOfMapping,
// `belowRange`: the PC is below the monitored range), and for a shared object in its object and
// one object-hit record; a shared object that finds the table full is counted unknown.
// Signal-safe.
void attributeOutsidePc(
    ProfileRecord& record, ObjectTable& table, const PcPlace& place, bool belowRange, uint64_t count);

// The index of the shared object that holds `place` (added to the table with no hits if new), or
// -1 when the place is not in a shared object or the table is full. For places that are not
// samples (where blocked threads waited). Signal-safe.
int objectOfPlace(const ProfileRecord& record, ObjectTable& table, const PcPlace& place);

// Sorts the hits by object, then file offset: the order writeProfile() wants. Signal-safe.
void sortObjectHits(ObjectTable& table);

} // namespace ppe
