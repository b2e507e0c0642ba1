/* own_sigprof: a program with its own SIGPROF profiler (a handler and ITIMER_PROF at 100 Hz),
 * as programs built with gprof-style tools have. It prints how many of its own ticks it got.
 * Usage: own_sigprof [SCALE] */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static volatile long g_ticks;
volatile double g_sink;

static void onProf(int sig)
{
    (void)sig;
    ++g_ticks;
}

__attribute__((noinline)) void work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

int main(int argc, char** argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onProf;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGPROF, &sa, NULL);
    struct itimerval every10ms = { { 0, 10000 }, { 0, 10000 } };
    setitimer(ITIMER_PROF, &every10ms, NULL);
    work((argc > 1 ? atol(argv[1]) : 1) * 300000000L);
    struct itimerval off = { { 0, 0 }, { 0, 0 } };
    setitimer(ITIMER_PROF, &off, NULL);
    printf("own ticks %ld\n", g_ticks);
    return 0;
}
