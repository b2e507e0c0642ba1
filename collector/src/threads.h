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
    // The blocked scan's memory of the thread (blocked_scan.cc), collector thread only: where it
    // was found at its last look (its place's index + 1, 0: none), its CPU time then, the scan's
    // credited time and scan number then (0: never looked at), the scan since which it has not
    // run, and the scan its next look is due at.
    uint32_t scanPlace;
    uint64_t scanCpuNs;
    uint64_t scanCreditNs;
    uint64_t scanIndex;
    uint64_t scanSince;
    uint64_t scanDue;
    uint64_t scanListed; // the scan number of the last listing that showed it
    uint64_t nameCpuNs; // its CPU time when its name was read (readThreadDetails)
    uint64_t enrolSamples; // its samples when its CPU time was last read for them (slotSampled)
    // itimer-prof's weights (creditThreadCpu): the sampling period's number in the top 8 bits, the
    // thread's CPU time in ns that its samples stand for so far in the low 56.
    uint64_t credit;
};

// The slot of `tid`, claimed if new; nullptr when no slot near its hash is free (a program that made
// thousands of threads). Signal-safe, lock-free.
ThreadSlot* threadSlot(pid_t tid);

// Counts a sample of `weight` on the calling thread. Signal-safe, lock-free.
void countThreadSample(uint64_t weight);

// Counts a sample of `weight` on thread `tid` of this process (perf-ring's drain); nothing for a
// negative `tid` (a sample of no thread of this process). Signal-safe, lock-free.
void countSampleOf(pid_t tid, uint64_t weight);

// itimer-prof's weights. The process-wide ITIMER_PROF fires on a scheduler tick only, once per
// tick however many of the program's threads ran in it, so a thread sharing the CPUs with others
// took fewer samples per CPU second than one running alone (EveryThreadIsSampledInCpuMode: 13 %
// of the samples for 20 % of the CPU time). Each sample instead stands for the whole intervals of
// its own thread's CPU time since the thread's last sample: every thread's count is its CPU time.
//
// Starts a sampling period: every live thread but `skip` is credited up to its CPU time now; a
// thread met later in the period started in it. Signal-safe.
void openCpuCredit(pid_t skip);
// The intervals of `intervalNs` of the calling thread's CPU time not yet credited, now credited
// (0: less than one; it stays for the next); `tid` is the calling thread's id. Signal-safe,
// lock-free.
uint64_t creditThreadCpu(pid_t tid, uint64_t intervalNs);

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

// enrolLiveThreads for the collector thread's periodic refresh (issue 35: every 0.5 s it listed and
// read every idle thread): lists only when the process's thread count changed or a thread the table
// did not know took a sample since the last listing (threadClaims), and otherwise reads the CPU time
// of the threads that took samples since. Signal-safe.
void enrolNewThreads(pid_t skip);

// How many slots have been claimed so far: a new value means a thread the table did not know was
// met (a sample of it, a listing). Signal-safe.
uint64_t threadClaims();

// Copies the threads with samples, blocked time or at least `minCpuNs` of CPU time into `out`,
// reading the details of each one that still lives (while the program runs, of each one sampled
// since they were read); returns how many. Samples of threads the full
// table could not hold come last, as thread id 0. Signal-safe.
size_t snapshotThreads(ThreadRecord* out, size_t capacity, uint64_t minCpuNs);

// Forgets every thread (a forked child starts its own table). Signal-safe.
void clearThreads();

} // namespace ppe
