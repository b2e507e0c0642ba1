/* early_handler: handlers installed before the collector starts (from the executable's
 * .preinit_array, which runs before every constructor, libppe.so's and libppe.a's included) and
 * after it (in main), on signals the collector guards (SIGTERM, SIGUSR2, SIGINT, SIGHUP), with
 * SA_RESTART and SIGQUIT in sa_mask: each reads back as installed, runs when raised, with SIGQUIT
 * blocked. The early SIGALRM handler (SA_RESTART) writes a byte into a pipe main reads from:
 * alarm(1) restarts the read, which returns 1. Standard error says how many threads the process
 * had before the constructors (1: the collector had not started). */
#include "observe.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t g_ran[65], g_quitBlocked[65];
static int g_pipe[2] = { -1, -1 };

static void noteQuitBlocked(int signal)
{
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    g_quitBlocked[signal] = sigismember(&now, SIGQUIT);
}

static void onEarly(int signal)
{
    g_ran[signal] += 1;
    noteQuitBlocked(signal);
}

static void onLate(int signal)
{
    g_ran[signal] += 10;
    noteQuitBlocked(signal);
}

static void onAlarm(int signal)
{
    (void)signal;
    const int saved = errno;
    (void)!write(g_pipe[1], "x", 1);
    errno = saved;
}

static int threadCount(void)
{
    int n = 0;
    DIR* tasks = opendir("/proc/self/task");
    for (struct dirent* e; tasks && (e = readdir(tasks));)
        n += e->d_name[0] != '.';
    if (tasks)
        closedir(tasks);
    return n;
}

static int install(int signal, void (*handler)(int))
{
    struct sigaction action = { 0 };
    action.sa_handler = handler;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGQUIT);
    return sigaction(signal, &action, NULL);
}

static int g_earlyResult = -1;

static void early(void)
{
    fprintf(stderr, "early_handler: %d thread(s) before the constructors\n", threadCount());
    g_earlyResult = install(SIGTERM, onEarly) | install(SIGUSR2, onEarly) | install(SIGALRM, onAlarm) | pipe(g_pipe);
}
__attribute__((used, section(".preinit_array"))) static void (*const g_early)(void) = early;

static void check(const char* name, int signal, void (*expected)(int))
{
    struct sigaction now;
    sigaction(signal, NULL, &now);
    observe("%s: %s, SA_RESTART %d, SA_SIGINFO %d, SIGQUIT masked %d", name,
        now.sa_handler == expected ? "the program's handler" : "another handler", !!(now.sa_flags & SA_RESTART),
        !!(now.sa_flags & SA_SIGINFO), sigismember(&now.sa_mask, SIGQUIT));
    raise(signal);
    observe(
        "%s raised: handler ran %d, SIGQUIT blocked in it %d", name, (int)g_ran[signal], (int)g_quitBlocked[signal]);
}

int main(void)
{
    observe("early install %d", g_earlyResult);
    observe("late install %d", install(SIGINT, onLate) | install(SIGHUP, onLate));
    check("SIGTERM (early)", SIGTERM, onEarly);
    check("SIGUSR2 (early)", SIGUSR2, onEarly);
    check("SIGINT (late)", SIGINT, onLate);
    check("SIGHUP (late)", SIGHUP, onLate);
    alarm(1);
    char byte = 0;
    observe("read through SIGALRM (early, SA_RESTART) returned %s", outcome(read(g_pipe[0], &byte, 1), errno));
    return 0;
}
