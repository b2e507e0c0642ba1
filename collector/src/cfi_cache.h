// Issue 39: the collector thread's side of the unwinder (cfi_unwind.h). An unwind that read the
// tables through process_vm_readv for every frame cost 11 us a frame (a binary search of
// .eh_frame_hdr, then the FDE and its CIE, about twenty reads); the same return addresses come back
// sample after sample, so their rows are kept, by PC, in a table of fixed size. The objects'
// .eh_frame_hdr addresses come from a reading of /proc/self/maps (proc_maps.h) and each object's
// program headers, read through the same MemoryReader: no loader lock, no load from the program's
// memory. The state is large (about 330 KB): it is mapped when call paths are asked for.
#pragma once

#include "cfi_unwind.h"
#include "proc_maps.h"

namespace ppe {

// One executable mapping, and the .eh_frame_hdr of its object (0: none: no CFI to follow).
struct UnwindObject {
    uint64_t start, end;
    uint64_t ehFrameHdr;
};

inline constexpr size_t kMaxUnwindObjects = 1024;
inline constexpr size_t kCachedRules = 4096; // a power of two

struct CachedRule {
    uint64_t key = 0; // the pc, with the top bit for `caller`; 0: empty
    FrameRule rule;
    UnwindEnd why = UnwindEnd::Full; // when `found` is false
    bool found = false;
};

struct UnwindState {
    UnwindObject objects[kMaxUnwindObjects];
    size_t objectCount = 0;
    bool objectsTruncated = false; // more executable mappings than fit: some PCs find no object
    CachedRule rules[kCachedRules];
    uint64_t hits = 0, misses = 0;
    MemoryReader code; // how the tables are read
};

// The objects of `maps` (its executable mappings, in address order), each with its .eh_frame_hdr
// found through its ELF header, which `code` reads; the kept rows are dropped when an object is
// not where it was.
void refreshUnwindObjects(UnwindState& state, const MapsTable& maps);

// Drops the rows kept: an object was unloaded, and another may come at its address with the same
// layout.
void forgetUnwindRows(UnwindState& state);

// The .eh_frame_hdr for `pc`, 0 when no object holds it or its object has none.
uint64_t ehFrameHdrFor(const UnwindState& state, uint64_t pc);

// The rows of `state`, kept or read (RuleSource's contract; the context is the UnwindState).
RuleSource cachedRules(UnwindState& state);

} // namespace ppe
