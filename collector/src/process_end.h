// Ways a process ends: exit, _exit/_Exit (MPI_Abort ends this way), exec and the signals whose
// default action terminates. The collector writes its profile first.
//
// Wherever the ending happens it may be on a small stack: a signal handler on the program's
// alternate stack (8 KB is glibc's classic SIGSTKSZ, often malloc'ed without a guard page), a
// thread with a small stack. Writing the profile takes about 15 KB of stack (maps, build ids, the
// thread list), so the ending thread only notes the reason and has the collector thread write it
// on its own 1 MiB stack (service_thread.h), waiting with a deadline. Where there is no collector
// thread (none was needed, it is parked, or the ending is on it) the profile is written on the
// collector's ending stack, switched to with swapcontext. If the deadline passes the process ends
// anyway; the live file keeps the samples (ppe --recover).
#pragma once

#include <cstdint>

namespace ppe {

// How long an ending waits for the final profile: a profile takes milliseconds, an fsync on a slow
// file system seconds; batch systems send SIGKILL 30 s after SIGTERM (Slurm's KillWait), so longer
// gains nothing there.
inline constexpr uint64_t kEndingDeadlineNs = 30'000'000'000;

// Maps the ending stack, once. Returns false when it cannot (the profile is then written on the
// caller's stack where there is no collector thread). Not signal-safe.
bool prepareProcessEnd();

// Has the final profile written (finish(reason), once) off the caller's stack and waits for it, at
// most kEndingDeadlineNs. Nothing in a vfork child or when the collector is off. O(1) stack.
// Signal-safe.
void endProcess(const char* reason);

// finish() says when it starts writing the final profile and when it is done (or failed), for the
// endings that wait. Signal-safe.
void finalProfileStarted();
void finalProfileDone();

// The interposers' entry (interpose_process.cc): endProcess. Signal-safe.
void finishBeforeProcessEnds(const char* reason);

// dlclose: keeps the samples of an object it unloads (retired_objects.h), then returns what
// realDlclose returned.
int closeSharedObject(void* handle, int (*realDlclose)(void*));

} // namespace ppe
