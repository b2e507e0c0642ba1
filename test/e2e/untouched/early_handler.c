/* early_handler: handlers installed before the collector starts (a constructor of priority 101,
 * which runs before the default-priority constructor of a linked libppe.a; with libppe.so the
 * library's constructor runs first) and after it (in main), on signals the collector guards
 * (SIGTERM, SIGUSR2, SIGINT, SIGHUP) with SA_RESTART: each reads back as installed and runs when
 * raised. Standard error says how many threads the process had in the constructor (2: the
 * collector had started). */
#include "observe.h"

#include <dirent.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t g_ran[65];

static void onEarly(int signal) { g_ran[signal] += 1; }
static void onLate(int signal) { g_ran[signal] += 10; }

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

__attribute__((constructor(101))) static void early(void)
{
    fprintf(stderr, "early_handler: %d thread(s) in the constructor\n", threadCount());
    g_earlyResult = install(SIGTERM, onEarly) | install(SIGUSR2, onEarly);
}

static void check(const char* name, int signal, void (*expected)(int))
{
    struct sigaction now;
    sigaction(signal, NULL, &now);
    observe("%s: %s, SA_RESTART %d, SA_SIGINFO %d, SIGQUIT masked %d", name,
        now.sa_handler == expected ? "the program's handler" : "another handler", !!(now.sa_flags & SA_RESTART),
        !!(now.sa_flags & SA_SIGINFO), sigismember(&now.sa_mask, SIGQUIT));
    raise(signal);
    observe("%s raised: handler ran %d", name, (int)g_ran[signal]);
}

int main(void)
{
    observe("early install %d", g_earlyResult);
    observe("late install %d", install(SIGINT, onLate) | install(SIGHUP, onLate));
    check("SIGTERM (early)", SIGTERM, onEarly);
    check("SIGUSR2 (early)", SIGUSR2, onEarly);
    check("SIGINT (late)", SIGINT, onLate);
    check("SIGHUP (late)", SIGHUP, onLate);
    return 0;
}
