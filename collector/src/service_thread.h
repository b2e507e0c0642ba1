// The collector thread: a small service loop for the collector's work that must not run in a
// signal handler on a sampled program thread, or on the program's stacks: the live file's state,
// checkpoints and snapshots (checkpoints.h), draining perf-ring's buffers (ring_sampler.h), the
// scan of blocked threads (blocked_scan.h), and at the end the final profile, which an ending
// signal, _exit, exec or exit hands it (runEndingOnServiceThread, process_end.h). It is parked
// (gone from the process) around unshare and setns, which the kernel refuses to a process of
// several threads (parkServiceThread, interpose.cc), and while ppe_set replaces the perf events,
// so that its own copy of the descriptor table holds the new ones (control_api.cc).
//
// It is started only when a job is asked for, and is a guest in the program: it blocks every
// signal (no signal of the program or of the sampler is ever delivered to it, and its samples are
// dropped), runs on a stack mapped by the collector, allocates nothing after its start (glibc's
// pthread_create allocates the new thread's TLS vector once), takes no lock, uses no stdio, never
// keeps the process alive (when it is the last thread left it ends the process with exit(0), as
// glibc's last thread would) and never delays the exit (exit_group ends it wherever it is).
#pragma once

#include <cstdint>
#include <sys/types.h>

namespace ppe {

// A job, run on the collector thread with the CLOCK_MONOTONIC time in ns: never two jobs at once,
// never concurrently with itself. Any function that is not async-signal-safe only because of
// locks or allocation must still be avoided: the program may have forked while holding them.
using ServiceJobFn = void (*)(uint64_t nowNs);

inline constexpr int kMaxServiceJobs = 8;

// Adds a job due every `periodNs` (first one period from now). A run that starts late by a period
// or more skips the runs it missed (they are counted, see skippedServiceRuns) instead of running
// them back to back: work is skipped, never overlapped. Returns the job's id, or -1 when the table
// is full. Not signal-safe.
int addServiceJob(ServiceJobFn run, uint64_t periodNs);

// Lets `signal` through the thread's mask (0: none), from its next loop on. For ITIMER_PROF's
// SIGPROF: the kernel sends a process-wide timer's signal to the thread that was running when it
// expired and, when that thread blocks it, to another thread, which may be waiting, and whose wait
// it would cut short (EINTR); taken here, the sample is dropped instead. Signal-safe.
void acceptOnServiceThread(int signal);

// Makes job `id` due at once and wakes the thread. Safe to call from a signal handler.
void requestServiceJob(int id);

// Starts the thread with every signal blocked, once; returns when it runs. Returns false and sets
// *why when it cannot start. Not signal-safe (pthread_create).
bool startServiceThread(const char** why);

// Called on the thread that started (or restarted) the collector thread, once it runs (`ownTable`:
// it has its own copy of the descriptor table) or when it could not start (false), and on the
// collector thread when it leaves the process (parked): for descriptors only its table holds
// (ring_periods.h). Set before the start.
void setServiceThreadHooks(void (*started)(bool ownTable), void (*leaving)());

// True when the collector thread's start (or its restart after parking) is still to come: what is
// in the descriptor table then will be in its own copy. Not in a forked child before its restart.
bool serviceThreadStartPending();

// True when the collector thread runs its jobs (started, not parked, not stopped at the end).
bool serviceThreadServes();

// From now on no job starts (the profile is being finished); a run under way completes. Safe to
// call from a signal handler.
void stopServiceJobs();

// After stopServiceJobs: waits (at most `limitNs`) for a job under way to finish. Returns at once on
// the collector thread itself. Safe to call from a signal handler.
void waitForServiceJobs(uint64_t limitNs);

// Job `id` is due every `periodNs` from its next run on. Only from the job itself (the collector
// thread). Signal-safe.
void setServiceJobPeriod(int id, uint64_t periodNs);

// True when called on the collector thread. Safe to call from a signal handler.
bool onServiceThread();

// True on the collector thread when it has its own descriptor table (unshare(CLONE_FILES)): a
// descriptor it keeps open there is none of the program's. Signal-safe.
bool ownDescriptorTable();

// The CPU time the collector thread has used so far, in ms (its thread CPU clock); 0 when there is
// none. Signal-safe.
uint32_t serviceThreadCpuMs();

// The collector thread's kernel thread id (the sampler sends it nothing), 0 when there is none.
// Safe to call from a signal handler.
pid_t serviceThreadId();

// In a forked child, where only the forking thread lives: starts the child's own collector thread
// if the parent had one, with the same jobs due one period from now. Returns false and sets *why
// when it cannot. Not signal-safe (run from the atfork child handler).
bool restartServiceThreadInChild(const char** why);

// Has `ending` (writing the final profile) run on the collector thread, ahead of any job and
// once, and returns true; false when there is no collector thread to ask (none started, parked,
// or the caller is it), and then it is the caller's to run. Safe to call from a signal handler.
bool runEndingOnServiceThread(void (*ending)());

// Around a system call the kernel refuses to a process of more than one thread (unshare or setns
// of a user namespace, setns of a mount namespace): parkServiceThread stops the collector thread
// and waits until the kernel has let it go (at most 2 s, for a job under way); its jobs wait.
// resumeServiceThread starts it again. Nested and concurrent calls park it once. Not signal-safe.
void parkServiceThread();
void resumeServiceThread();

// How many runs of job `id` were skipped for being late.
uint64_t skippedServiceRuns(int id);

} // namespace ppe
