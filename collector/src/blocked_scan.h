// Real-time mode without signals to blocked threads: the collector thread scans /proc/self/task and,
// for every thread the kernel holds blocked (sleeping, waiting for I/O, a lock or a child), reads
// /proc/self/task/TID/syscall — the system call and the user PC and stack pointer it was entered
// from — and credits the wall time since the previous scan to that place. Nothing is sent to the
// thread: its sleep is not cut short, no call returns EINTR. Running threads are sampled by the
// sampler as in CPU mode.
//
// The call into the monitored image is found above the stack pointer: the first word that points
// into the image's code just after a call instruction (read with process_vm_readv, which fails
// cleanly on unmapped memory). The scan lists the threads again only when their number changes or
// a thread it does not know takes a sample; a thread whose CPU time has not moved since its last
// look is where it was, all that time (one clock_gettime), and is looked at again after half the
// time it has waited there (at most kMaxLookScans scans apart); a thread that ran is looked at
// every scan, its place read anew. The scan runs every 20 sample intervals, less often where that
// would cost more than 0.4 % of one CPU, with random jitter so that it does not beat with periodic
// waits, and each look stands for the real time since that thread's previous look
// (docs/user-guide.md says how the blocked time's error follows).
#pragma once

#include "ppe/core/ppe_writer.h"

#include <cstddef>
#include <cstdint>

namespace ppe {

inline constexpr size_t kBlockedSlots = 2048;
inline constexpr int64_t kOtherCalls = -2;

// A place where one thread was found blocked, in run-time addresses.
struct RawBlocked {
    int64_t syscall; // -1: not in a system call; kOtherCalls: system calls the full table could not place
    uint64_t site; // the user PC the kernel reports
    uint64_t caller; // the call into the monitored image found on the stack, 0: none
    uint64_t tid; // the thread (issue 34: its waits are grouped); 0 once the table is full
    uint64_t ns;
    uint64_t observations;
};

// Adds the scan to the collector thread's jobs and starts that thread. Not signal-safe.
bool startBlockedScan(uint64_t intervalNs, const char** why);

// True once startBlockedScan succeeded. Signal-safe.
bool blockedScanActive();

// Copies the places found so far into `out` (at most `capacity`); returns how many. Signal-safe;
// call it on the collector thread or after its jobs stopped (waitForServiceJobs).
size_t snapshotBlocked(RawBlocked* out, size_t capacity);

// Scans so far, their mean period and their CPU cost. Signal-safe.
ScanSummary blockedScanSummary();

// Forgets every place (a forked child starts its own). Signal-safe.
void clearBlockedScan();

} // namespace ppe
