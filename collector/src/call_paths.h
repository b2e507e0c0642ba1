// Issue 39: call paths. Each perf-ring sample carries its thread's registers and a copy of its
// stack (ring_stacks.h); the drain unwinds them with the objects' CFI (cfi_unwind.h, rows kept by
// PC in cfi_cache.h) and adds the path to a calling-context tree of fixed size (core call_tree.h),
// which the profile writes. A path the unwinder could not follow to the outermost frame starts
// with a node naming why (kShortPathBase + UnwindEnd). Everything runs where the drain runs (the
// collector thread, or an ending): raw system calls, no allocation after the start.
#pragma once

#include "ring_stacks.h"

#include <cstdint>
#include <sys/types.h>

namespace ppe {

inline constexpr size_t kMaxCallFrames = 256;

// Maps the unwinder's state and reads the objects' tables (the tree is the live profile's,
// live_profile.h). Not signal-safe (once, at the start). False with `why` when the memory cannot
// be had.
bool startCallPaths(const char** why);

// RingHooks::path: unwinds one sample and adds its path to the live profile's tree.
void takeCallPath(const UserState& user, pid_t tid);

// The objects may have changed (a dlopen or dlclose): the next unwind reads /proc/self/maps first.
void callPathObjectsChanged();

} // namespace ppe
