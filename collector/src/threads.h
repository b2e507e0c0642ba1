// Every thread of the program the collector has seen: the samples the signal handler counted on it
// and what the collector thread learnt of it (name, CPU time, blocked time), for the .ppe's
// per-thread records. One fixed table, filled lock-free: a thread's slot is claimed by a
// compare-and-swap of its id. A thread id the kernel reuses after its thread ended shares the slot.
#pragma once

#include "ppe/core/ppe_writer.h"

#include <cstddef>
#include <cstdint>
#include <sys/types.h>

namespace ppe {

inline constexpr size_t kThreadSlots = 4096;

struct ThreadSlot {
    uint32_t tid; // 0: free
    uint64_t samples;
    uint64_t cpuNs; // the thread's CPU time when last read
    uint64_t blockedNs; // added by the collector thread's scans (real-time mode)
    char name[16];
    // The blocked scan's memory of where it last found the thread (blocked_scan.cc): its place's
    // index + 1 (0: none) and the thread's CPU time when it was read there. Collector thread only.
    uint32_t scanPlace;
    uint64_t scanCpuNs;
    uint64_t nameCpuNs; // its CPU time when its name was read (readThreadDetails)
};

// The slot of `tid`, claimed if new; nullptr when no slot near its hash is free (a program that made
// thousands of threads). Signal-safe, lock-free.
ThreadSlot* threadSlot(pid_t tid);

// Counts a sample of `weight` on the calling thread. Signal-safe, lock-free.
void countThreadSample(uint64_t weight);

// Counts a sample of `weight` on thread `tid` of this process (perf-ring's drain); nothing for a
// negative `tid` (a sample of no thread of this process). Signal-safe, lock-free.
void countSampleOf(pid_t tid, uint64_t weight);

// Reads the thread's CPU time while it lives; false when it has ended. Signal-safe.
bool readThreadCpu(ThreadSlot& slot);

// Reads the thread's CPU time while it lives, and its name when it has run since the name was read
// (an ended thread keeps what was read before). Signal-safe.
void readThreadDetails(ThreadSlot& slot);

// Gives every live thread of the process but `skip` (the collector's own) a slot and reads its name and CPU
// time, so that a thread that runs without taking a single sample (one that blocks the sampling
// signal) is seen too, with the CPU time it had when last enrolled once it has ended: the first
// kEnrolledThreads that /proc/self/task lists. Signal-safe.
inline constexpr int kEnrolledThreads = 512;
void enrolLiveThreads(pid_t skip);

// Copies the threads with samples, blocked time or at least `minCpuNs` of CPU time into `out`,
// reading the details of each one that still lives; returns how many. Samples of threads the full
// table could not hold come last, as thread id 0. Signal-safe.
size_t snapshotThreads(ThreadRecord* out, size_t capacity, uint64_t minCpuNs);

// Forgets every thread (a forked child starts its own table). Signal-safe.
void clearThreads();

} // namespace ppe
