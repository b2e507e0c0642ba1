// perf-ring's forked children, which start cheap (docs/performance.md, "Forked children"). A child
// opens its rings at the fork but reads them only once it has used 20 ms of CPU (or lived 1 s); it
// also inherits its
// parent's events (the rings are opened without inherit_thread), so that its samples land in the
// rings of its nearest ancestor that reads rings (its owner) too, which holds them here, by pid. A
// child that gets that far takes its own rings' samples and its owner drops what it held; one that
// ends before has the held samples folded into its owner's profile (the same program's code: a
// fork without exec).
//
// One table shared by every process of the tree (a MAP_SHARED anonymous mapping made by the first
// collector, inherited across fork, dropped at exec): a slot per pid modulo its size, each with
// the owner, whether the child took over, and the samples held for it. Lock-free; the owner's
// drain is the only writer of a slot's samples, the child the only one that takes them.
#pragma once

#include <cstdint>
#include <sys/types.h>

namespace ppe {

// Maps the table (once; a forked child keeps its parent's). False when it cannot be. Not signal-safe.
bool createForkTable();

// In a forked child (single-threaded): `pid` waits for its rings, its samples held by `owner`.
// False when there is no table. Signal-safe.
bool registerForkedChild(pid_t pid, pid_t owner);

enum class ForkRole {
    Unknown, // not a registered child: a foreign sample
    Held, // a child of `self` that has no rings yet: its sample is held for it
    Elsewhere, // a child with rings of its own, or another owner's: its samples are counted there
};

// What a sample of process `pid` found in the rings of `self` is. Signal-safe, lock-free.
ForkRole forkRoleOf(pid_t pid, pid_t self);

// Holds a sample of child `pid` (its role was Held); false when its slot is full (the sample is lost).
bool holdSample(pid_t pid, uint64_t pc, pid_t tid);

// In child `pid`, once it takes its own rings' samples (which hold every sample since the fork):
// from now on its owner leaves its samples alone, and those held so far are dropped. Signal-safe.
void dropHeldSamples(pid_t pid);

using TakeSample = void (*)(uintptr_t pc, pid_t tid, uint64_t weight);

// In the owner `self`: the held samples of children that ended without rings of their own go to
// `take` (and their slots are freed). Returns how many such children. Signal-safe.
uint64_t foldEndedChildren(pid_t self, TakeSample take);

} // namespace ppe
