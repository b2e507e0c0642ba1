// Issue 39: the call paths of the samples, folded into a calling-context tree of fixed size (the
// node of a path is the node of its caller's path and one more PC), as HPCToolkit keeps them: a
// three-day job's paths in bounded memory, each sample counted once at the end of its path. One
// writer (the collector thread's ring drain); nothing allocated; a path with no room left is cut
// where it stops fitting and counted so, never dropped. The tree is one piece of memory (header,
// buckets, nodes), so that a live file or a checkpoint can hold it as it is.
#pragma once

#include "ppe/core/limits.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

// Why a path stopped short of the outermost frame, as the first PC of the path (real code is never
// mapped that low): the unwinder's reason (collector/src/cfi_unwind.h UnwindEnd) plus this base.
inline constexpr uint64_t kShortPathBase = 16;
inline constexpr uint64_t kShortPathEnd = 32;

struct CallNode {
    uint64_t pc = 0; // run-time: the sampled PC at a leaf, return addresses above it; 0: the root
    uint64_t self = 0; // samples whose path ends here
    uint32_t parent = 0; // the root (index 0) is its own parent
    uint32_t next = 0; // the next node in the same bucket (0: none)
};

struct CallTreeHeader {
    uint32_t capacity = 0; // nodes, the root included
    uint32_t buckets = 0; // a power of two
    uint32_t used = 0; // nodes in use, the root included
    uint32_t reserved = 0;
    uint64_t samples = 0; // samples added
    uint64_t cut = 0; // of those, samples whose path did not fit: counted at the deepest node that did
};

struct CallTree {
    CallTreeHeader* header = nullptr;
    uint32_t* buckets = nullptr;
    CallNode* nodes = nullptr;
};

// The bytes of a tree of `capacity` nodes (at least 2).
size_t callTreeBytes(uint32_t capacity);

// A tree of `capacity` nodes in `memory` (callTreeBytes of it, zeroed), holding only its root.
CallTree makeCallTree(void* memory, uint32_t capacity);

// The tree of `capacity` nodes already in `memory` (a live file's, read back), or an empty CallTree
// when its header does not say that capacity or its nodes are not a tree (a parent after its child):
// a damaged tree is dropped, never followed.
CallTree readCallTree(void* memory, uint32_t capacity);

// Adds `weight` samples along `pcs`, `count` frames, the sampled PC first and the outermost last.
// False when the path was cut for room (its samples then count at the deepest node that fit).
bool addCallPath(const CallTree& tree, const uint64_t* pcs, size_t count, uint64_t weight);

} // namespace ppe
