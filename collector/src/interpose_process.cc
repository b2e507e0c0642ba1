// _exit, _Exit and the exec family skip exit handlers, so the collector writes its profile here
// first (abort() too, after a SIGABRT handler of the program returned) (PPE lost nothing on VMS image rundown; on Linux
// these are the paths that skip atexit). dlclose unmaps an object whose samples are still counted by run-time address:
// the collector moves them out first (retired_objects.h). Only in libppe.so: in a fully static link these definitions
// would collide with libc.a's.
//
// pthread_create: a new thread keeps for its life the sampling period its creator's perf events
// have at that moment, and those periods vary (period_dither.h): every thread is created at the
// asked period. Only here can the collector see thread creation, so only libppe.so varies them.
#include "period_dither.h"
#include "process_end.h"
#include "ring_periods.h"

#include <cerrno>
#include <csignal>
#include <cstdarg>
#include <dlfcn.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

extern char** environ;
// The C library's own sigaction, past the collector's interposer.
extern "C" int __sigaction(int signal, const struct sigaction* act, struct sigaction* old);

namespace {

using ExecvpeFn = int (*)(const char*, char* const[], char* const[]);
using FexecveFn = int (*)(int, char* const[], char* const[]);
using DlcloseFn = int (*)(void*);
using PthreadCreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);

// The C library's versions, looked up before main (dlsym is not safe between fork and exec).
ExecvpeFn g_execvpe = nullptr;
FexecveFn g_fexecve = nullptr;
DlcloseFn g_dlclose = nullptr;
PthreadCreateFn g_pthreadCreate = nullptr;

// Before the collector's own start (control_api.cc): the rings it opens may then vary their periods.
__attribute__((constructor(101))) void findRealFunctions()
{
    g_execvpe = reinterpret_cast<ExecvpeFn>(dlsym(RTLD_NEXT, "execvpe"));
    g_fexecve = reinterpret_cast<FexecveFn>(dlsym(RTLD_NEXT, "fexecve"));
    g_dlclose = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
    g_pthreadCreate = reinterpret_cast<PthreadCreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
    if (g_pthreadCreate)
        ppe::allowPeriodChanges();
}

[[noreturn]] void exitGroup(int status)
{
    ppe::finishBeforeProcessEnds("_exit");
    for (;;)
        syscall(SYS_exit_group, status);
}

int execWithPath(const char* file, char* const argv[], char* const envp[])
{
    ppe::finishBeforeProcessEnds("exec");
    if (g_execvpe)
        return g_execvpe(file, argv, envp);
    return int(syscall(SYS_execve, file, argv, envp));
}

constexpr int kMaxListArgs = 4096;

// Collects execl-style arguments (after `first`) into argv; returns false if there are too many.
bool collect(const char* first, va_list args, char** argv)
{
    int n = 0;
    argv[n++] = const_cast<char*>(first);
    while (argv[n - 1]) {
        if (n == kMaxListArgs)
            return false;
        argv[n++] = va_arg(args, char*);
    }
    return true;
}

// What glibc's abort() does, with the profile written between the program's SIGABRT handler and the
// default action. glibc sets that default past sigaction (and the guard with it) and raises SIGABRT
// again: a program whose handler returned used to end without its profile.
[[noreturn]] void abortWithProfile()
{
    struct sigaction program { };
    sigaction(SIGABRT, nullptr, &program); // the program's own (dispositions.h)
    sigset_t abrt;
    sigemptyset(&abrt);
    sigaddset(&abrt, SIGABRT);
    sigprocmask(SIG_UNBLOCK, &abrt, nullptr);
    if (program.sa_handler != SIG_DFL) { // a handler (sa_sigaction shares the union) or SIG_IGN
        raise(SIGABRT);
        ppe::finishBeforeProcessEnds("signal 6");
        struct sigaction byDefault { };
        byDefault.sa_handler = SIG_DFL;
        sigfillset(&byDefault.sa_mask);
        __sigaction(SIGABRT, &byDefault, nullptr);
    }
    raise(SIGABRT); // at the default: the guard, when it is in, writes the profile first
    for (;;)
        syscall(SYS_exit_group, 127); // glibc's last resort
}

} // namespace

extern "C" {

#define PPE_EXPORT __attribute__((visibility("default")))

PPE_EXPORT void abort(void) { abortWithProfile(); }

PPE_EXPORT void _exit(int status) { exitGroup(status); }
PPE_EXPORT void _Exit(int status) { exitGroup(status); }

PPE_EXPORT int execve(const char* path, char* const argv[], char* const envp[])
{
    ppe::finishBeforeProcessEnds("exec");
    return int(syscall(SYS_execve, path, argv, envp));
}

PPE_EXPORT int execv(const char* path, char* const argv[]) { return execve(path, argv, environ); }
PPE_EXPORT int execvp(const char* file, char* const argv[]) { return execWithPath(file, argv, environ); }
PPE_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[])
{
    return execWithPath(file, argv, envp);
}

PPE_EXPORT int fexecve(int fd, char* const argv[], char* const envp[])
{
    ppe::finishBeforeProcessEnds("exec");
    return g_fexecve ? g_fexecve(fd, argv, envp) : -1;
}

PPE_EXPORT int execl(const char* path, const char* arg, ...)
{
    char* argv[kMaxListArgs];
    va_list args;
    va_start(args, arg);
    const bool fits = collect(arg, args, argv);
    va_end(args);
    return fits ? execv(path, argv) : -1;
}

PPE_EXPORT int execlp(const char* file, const char* arg, ...)
{
    char* argv[kMaxListArgs];
    va_list args;
    va_start(args, arg);
    const bool fits = collect(arg, args, argv);
    va_end(args);
    return fits ? execvp(file, argv) : -1;
}

PPE_EXPORT int dlclose(void* handle)
{
    if (!g_dlclose) // called from a constructor that ran before ours
        g_dlclose = reinterpret_cast<DlcloseFn>(dlsym(RTLD_NEXT, "dlclose"));
    if (!g_dlclose)
        return -1;
    return ppe::closeSharedObject(handle, g_dlclose);
}

PPE_EXPORT int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg)
{
    if (!g_pthreadCreate) // called from a constructor that ran before ours
        g_pthreadCreate = reinterpret_cast<PthreadCreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
    if (!g_pthreadCreate)
        return EAGAIN;
    const int saved = errno; // the program sees pthread_create's errno, not the collector's calls
    ppe::beginThreadCreation();
    errno = saved;
    const int error = g_pthreadCreate(thread, attr, start, arg);
    const int after = errno;
    ppe::endThreadCreation();
    errno = after;
    return error;
}

PPE_EXPORT int execle(const char* path, const char* arg, ...)
{
    char* argv[kMaxListArgs];
    va_list args;
    va_start(args, arg);
    const bool fits = collect(arg, args, argv);
    char* const* envp = fits ? va_arg(args, char* const*) : nullptr;
    va_end(args);
    return fits ? execve(path, argv, envp) : -1;
}
}
