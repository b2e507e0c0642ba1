// The program may install handlers for the signals the collector samples with (libgfortran, for
// one, sets a SIGTRAP handler for its backtraces from main()). Replacing the collector's handler
// would turn every sample into the program's fatal-error path, so while the collector owns a
// signal these calls record the program's disposition instead; the collector's handler passes
// every signal that is not a sample on to it, as if it were installed.
//
// Both names are weak aliases in glibc (sigaction of __sigaction, signal of __bsd_signal), so
// these definitions take their place in static links as well as dynamic ones.
#include "sampler.h"

#include <csignal>
#include <sys/time.h>

extern "C" {

__attribute__((visibility("default"))) int sigaction(int signal, const struct sigaction* act, struct sigaction* old)
{
    if (ppe::samplerOwnsSignal(signal))
        return ppe::guardedSigaction(signal, act, old);
    return __sigaction(signal, act, old);
}

// BSD semantics, as glibc's signal(): restart system calls, block the signal in its handler.
__attribute__((visibility("default"))) sighandler_t signal(int signal, sighandler_t handler)
{
    struct sigaction action { };
    struct sigaction old { };
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, signal);
    if (sigaction(signal, &action, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

// A program that runs its own ITIMER_PROF profiler keeps it; the collector steps aside if it was
// using that timer (it does only as the fallback for CPU time without perf events).
__attribute__((visibility("default"))) int setitimer(int which, const struct itimerval* value, struct itimerval* old)
{
    if (which == ITIMER_PROF && value && (value->it_value.tv_sec || value->it_value.tv_usec))
        ppe::yieldProfTimer();
    return ppe::rawSetitimer(which, value, old);
}
}
