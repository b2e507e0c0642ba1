// Where samples come from. Four mechanisms, chosen by what the kernel allows (and PPE_TIMER):
//  - perf-ring (the default in both modes): no signal at all; per-CPU task-clock events write
//    samples into ring buffers that the collector thread drains (ring_sampler.h). Threads that
//    block signals are sampled too, and no system call returns EINTR.
//  - perf-task-clock (where no ring can be mapped, e.g. the locked-memory limit; PPE_TIMER=perf):
//    one PERF_COUNT_SW_TASK_CLOCK event per thread with sigtrap=1, inherited by every thread
//    created later; the kernel sends SIGTRAP to the thread whose CPU time ran out its period, at
//    the asked rate (Linux >= 5.13, perf_event_paranoid <= 2). Only a running thread's user code
//    is ever interrupted, so no system call returns EINTR; a thread that blocks SIGTRAP is missed.
//    In real-time mode (both perf mechanisms) the collector thread adds the time of blocked
//    threads (blocked_scan.h).
//  - itimer-prof (where perf events are refused): setitimer(ITIMER_PROF), SIGPROF to the running
//    thread; process-wide, but fires only on the scheduler tick (e.g. 250 Hz) whatever rate is asked,
//    once a tick for all the threads that ran in it: each sample is weighted by its own thread's CPU
//    time since that thread's last (threads.h, creditThreadCpu), and counted as a tick.
//  - posix-timer (real time, only when asked for with PPE_TIMER=posix): one CLOCK_MONOTONIC POSIX
//    timer; the thread that takes its signal (the real-time signal SIGRTMAX-3) forwards it with
//    rt_tgsigqueueinfo() (carrying the sample's weight) to every other thread of the program, so
//    each thread is sampled at the asked rate whether it runs or waits — and a sleeping thread's
//    sleep is cut short (EINTR).
// The collector's own thread (service_thread.h) blocks every signal: it is never sent a forwarded
// sample, a SIGTRAP of its inherited perf event stays pending there, and a sample taken on it
// anyway is dropped by the collector's hook.
#pragma once

#include "config.h"
#include "ring_sampler.h"

#include "ppe/core/mechanism.h"

#include <csignal>
#include <cstdint>
#include <sys/time.h>
#include <sys/types.h>

namespace ppe {
// setitimer past the collector's interposer (libc.so does not export __setitimer). Signal-safe.
int rawSetitimer(int which, const struct itimerval* value, struct itimerval* old);
}

namespace ppe {

struct SamplerHooks {
    // A sample of the interrupted thread standing for `weight` intervals (more than 1 when a
    // real-time timer overran while the process waited for a CPU); from a signal handler.
    void (*sample)(uintptr_t pc, uint64_t weight);
    void (*tick)(uint64_t expirations); // a real-time timer expiry; from a signal handler
    // itimer-prof: the intervals of the interrupted thread's own CPU time its sample stands for (0:
    // less than one so far, no sample), and the sample of that weight taken. From a signal handler.
    uint64_t (*cpuCredit)(pid_t tid, uint64_t intervalNs);
    void (*weighed)(uint64_t weight);
    // The collector's own thread (0: none), which is sent no forwarded sample: it blocks every
    // signal, and queued real-time signals would pile up there. From a signal handler.
    pid_t (*quietThread)();
    RingHooks ring; // perf-ring: its samples come from the collector thread's drain, not a signal
    RingSize ringSize; // perf-ring: 0s but in tests that force an overflow
};

// Installs the signal handler and creates the timer or events, not yet running (both modes sample
// by the same mechanisms). On failure returns Mechanism::None and sets *why. Not signal-safe.
Mechanism armSampler(uint64_t intervalNs, TimerChoice choice, SamplerHooks hooks, const char** why);

// Starts or stops the flow of signals (or of ring samples). Signal-safe.
void runSampler(bool on);

// Stops the flow of signals for good; signals already on their way are still recognised and
// dropped. Signal-safe.
void disarmSampler();

// Guards each of `signals` (dispositions.h): whenever the program's action is the default (so
// terminating) one, the collector's guard is in the kernel instead, and when the signal arrives
// `ending` runs (O(1): it has the profile written), then the default action happens as it would
// have (same signal, core dump included). An action the program sets that is not the default goes
// to the kernel as it is. Not signal-safe.
void guardEndings(const int* signals, int count, void (*ending)(int signal));

// Takes `signal` (PPE_SNAPSHOT_SIGNAL): `snapshot` runs when it arrives, then the program's own
// handler if it installs one; its default action, ending the program, does not happen. Returns
// false when the handler cannot be installed. Not signal-safe.
//
// The sampling signal and the snapshot signal are owned (dispositions.h): the program's action is
// recorded and its handler chained, with its sa_mask, SA_NODEFER, SA_RESETHAND and SA_SIGINFO
// honoured; what cannot be honoured is the collector's own SA_RESTART and SA_ONSTACK (a program
// handler without them still has system calls restarted and runs on its alternate stack if it has
// one), and a signal the program ignores still interrupts a sleep (nanosleep, poll: EINTR), as any
// handled signal does.
bool guardSnapshot(int signal, void (*snapshot)());

// The program is taking ITIMER_PROF for itself: when the collector samples with it, it stops
// (saying so once) and leaves the timer and SIGPROF to the program. Signal-safe.
void yieldProfTimer();

// Drains the ring buffers into the histogram before a profile is written (perf-ring; nothing for
// the others). Not concurrently with the collector thread's drain (it returns at once then).
// Signal-safe.
void drainSampler();

// In a forked child: timers and perf events are not inherited by processes (only by threads), so
// create the child's own. Returns false (and sets *why) if that failed. Signal-safe.
bool rearmSamplerInChild(const char** why);

} // namespace ppe
