// The program's signal dispositions, as the program set them, and what the kernel holds instead.
// The rule (issue 33): whatever the program can observe is what it would be without the collector.
// Each signal the collector touches has one of two roles:
//  - Guarded (the ending signals: faults, TERM, INT, HUP, ...): the kernel holds exactly the
//    program's action, except while that action is the default; only then is the collector's
//    guard in (a handler that writes the profile and lets the default action happen, with
//    SA_RESTART so that no system call is ever seen interrupted: the process ends anyway). A handler
//    or SIG_IGN of the program goes to the kernel as given (flags, mask, all); SIG_DFL puts the
//    guard back. A handler with SA_RESETHAND goes with its flags and mask too, but through a
//    trampoline: the kernel resets it to the default on delivery as it would, and the trampoline
//    puts the guard back in before it calls the program's handler (a crash handler that raises
//    its signal again then ends the program with the profile written).
//  - Owned (the sampling signal and PPE_SNAPSHOT_SIGNAL): the collector's handler stays in the
//    kernel; the program's action is recorded and the handler chains to it (sampler.cc), honouring
//    its sa_mask, SA_NODEFER and SA_RESETHAND.
// sigaction(sig, NULL, &old) reports the program's own action in both cases.
// Every program handler that runs on the alternate stack (SA_ONSTACK), whatever its signal's role,
// has the sampling signal added to its mask in the kernel (quietOnAlternateStacks): a sample would
// otherwise nest on a stack sized for one handler. Its sample waits for the handler's return and is
// taken where the handler's signal interrupted. The program reads back its own mask; only a
// handler that asks for its thread's mask sees the sampling signal blocked. The recorded actions
// are written under a lock taken with every signal blocked (so that no handler on the same thread
// can wait for it) and read by handlers with a sequence count (never torn).
#pragma once

#include <csignal>

// The C library's own sigaction, past the collector's interposer (exported by glibc's libc.so and
// libc.a). Signal-safe.
extern "C" int __sigaction(int signal, const struct sigaction* act, struct sigaction* old);

namespace ppe {

// Takes `signal` for the collector: `action` goes to the kernel and the program's action so far is
// recorded. Returns false (kernel unchanged) when the kernel refuses. Not signal-safe.
bool ownSignal(int signal, const struct sigaction& action);

// Guards `signal` with `guard`: in the kernel whenever the program's action is the default (now,
// or whenever the program sets it back). Not signal-safe.
void guardSignal(int signal, const struct sigaction& guard);

// True when `signal` is owned (its program action is recorded and chained). Signal-safe.
bool ownsSignal(int signal);

// The program's recorded action for an owned signal, never torn. Signal-safe.
void programAction(int signal, struct sigaction* out);

// SA_RESETHAND, as the kernel does it when it delivers to the handler: the program's recorded
// action for the owned `signal` becomes SIG_DFL (flags and mask kept). Signal-safe.
void resetProgramAction(int signal);

// The default action is about to happen for `signal` (the guard or owner saw it arrive while the
// program's action was the default): the kernel gets SIG_DFL and the collector lets go. Signal-safe.
void takeDefaultAction(int signal);

// The sampling signal is `signal` from now on (0: none): every program handler with SA_ONSTACK gets
// it in its kernel mask, now and whenever the program sets one. Not signal-safe.
void quietOnAlternateStacks(int signal);

// The signal quietOnAlternateStacks last set (0: none). Signal-safe.
int quietSignal();

// sigaction() as the program sees it (the interposer, interpose.cc). Signal-safe.
int programSigaction(int signal, const struct sigaction* act, struct sigaction* old);

} // namespace ppe
