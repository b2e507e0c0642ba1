// The program's signal dispositions are its own (dispositions.h): every way of setting one goes
// through programSigaction, which hands the program's action to the kernel, or records it where
// the collector holds the signal. glibc's sigaction and signal are weak aliases (of __sigaction
// and __bsd_signal), as are bsd_signal, sysv_signal and the rest, each in its own archive member:
// these definitions take their place in static links as well as dynamic ones. What is not covered:
// a raw rt_sigaction system call, and glibc's internal calls (siginterrupt, system, posix_spawn),
// which meet either the program's own action in the kernel or, while the program's is the default,
// the guard (whose flags do not matter: the process ends).
//
// unshare and setns: the kernel refuses a new user namespace (and setns into one, or into a mount
// namespace) to a process of more than one thread, and the collector thread would make every
// profiled process one; it is parked around these calls (service_thread.h). clone() needs nothing:
// the kernel makes a child in a new user namespace whatever threads the caller has. Not covered:
// the raw system calls.
#include "dispositions.h"
#include "sampler.h"
#include "service_thread.h"

#include <cerrno>
#include <csignal>
#include <sched.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

extern "C" sighandler_t __sysv_signal(int signal, sighandler_t handler);
extern "C" sighandler_t bsd_signal(int signal, sighandler_t handler);

namespace {

// The signals siginterrupt() made interrupting: signal() then leaves SA_RESTART out, as glibc does.
sigset_t g_interrupting;

bool isHandlerSettable(int signal, sighandler_t handler)
{
    if (handler != SIG_ERR && signal > 0 && signal < NSIG)
        return true;
    errno = EINVAL;
    return false;
}

sighandler_t setHandler(int signal, sighandler_t handler, int flags, bool maskSelf)
{
    if (!isHandlerSettable(signal, handler))
        return SIG_ERR;
    struct sigaction action { };
    struct sigaction old { };
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    if (maskSelf)
        sigaddset(&action.sa_mask, signal);
    if (ppe::programSigaction(signal, &action, &old) != 0)
        return SIG_ERR;
    return old.sa_handler;
}

// BSD semantics, as glibc's signal(): restart system calls, block the signal in its handler.
sighandler_t bsdSignal(int signal, sighandler_t handler)
{
    const bool interrupting = signal > 0 && signal < NSIG && sigismember(&g_interrupting, signal) == 1;
    return setHandler(signal, handler, interrupting ? 0 : SA_RESTART, true);
}

// Around a call the kernel refuses to a process of several threads: the collector thread parked,
// the call's result and errno kept.
long withCollectorParked(long number, long first, long second)
{
    ppe::parkServiceThread();
    const long result = syscall(number, first, second);
    const int error = errno;
    ppe::resumeServiceThread();
    errno = error;
    return result;
}

} // namespace

extern "C" {

#define PPE_EXPORT __attribute__((visibility("default")))

PPE_EXPORT int sigaction(int signal, const struct sigaction* act, struct sigaction* old)
{
    return ppe::programSigaction(signal, act, old);
}

PPE_EXPORT sighandler_t signal(int signal, sighandler_t handler) { return bsdSignal(signal, handler); }
PPE_EXPORT sighandler_t bsd_signal(int signal, sighandler_t handler) { return bsdSignal(signal, handler); }

// System V semantics (strict ISO C's signal() is __sysv_signal): one shot, not masked, interrupting.
PPE_EXPORT sighandler_t sysv_signal(int signal, sighandler_t handler)
{
    return setHandler(signal, handler, SA_RESETHAND | SA_NODEFER, false);
}
PPE_EXPORT sighandler_t __sysv_signal(int signal, sighandler_t handler) { return sysv_signal(signal, handler); }

// As glibc's: SIG_HOLD blocks the signal; anything else sets it and unblocks the signal; SIG_HOLD
// is returned when the signal was blocked.
PPE_EXPORT sighandler_t sigset(int signal, sighandler_t handler)
{
    if (!isHandlerSettable(signal, handler))
        return SIG_ERR;
    sigset_t one;
    sigset_t was;
    sigemptyset(&one);
    sigaddset(&one, signal);
    struct sigaction old { };
    if (handler == SIG_HOLD) {
        if (sigprocmask(SIG_BLOCK, &one, &was) < 0)
            return SIG_ERR;
        if (sigismember(&was, signal))
            return SIG_HOLD;
        return ppe::programSigaction(signal, nullptr, &old) < 0 ? SIG_ERR : old.sa_handler;
    }
    const sighandler_t previous = setHandler(signal, handler, 0, false);
    if (previous == SIG_ERR || sigprocmask(SIG_UNBLOCK, &one, &was) < 0)
        return SIG_ERR;
    return sigismember(&was, signal) ? SIG_HOLD : previous;
}

PPE_EXPORT int siginterrupt(int signal, int interrupt)
{
    struct sigaction action { };
    if (ppe::programSigaction(signal, nullptr, &action) < 0)
        return -1;
    if (interrupt) {
        sigaddset(&g_interrupting, signal);
        action.sa_flags &= ~SA_RESTART;
    } else {
        sigdelset(&g_interrupting, signal);
        action.sa_flags |= SA_RESTART;
    }
    return ppe::programSigaction(signal, &action, nullptr);
}

PPE_EXPORT int unshare(int flags) { return int(withCollectorParked(SYS_unshare, flags, 0)); }
PPE_EXPORT int setns(int fd, int nstype) { return int(withCollectorParked(SYS_setns, fd, nstype)); }

// A program that runs its own ITIMER_PROF profiler keeps it; the collector steps aside if it was
// using that timer (it does only as the fallback for CPU time without perf events).
PPE_EXPORT int setitimer(int which, const struct itimerval* value, struct itimerval* old)
{
    if (which == ITIMER_PROF && value && (value->it_value.tv_sec || value->it_value.tv_usec))
        ppe::yieldProfTimer();
    return ppe::rawSetitimer(which, value, old);
}
}
