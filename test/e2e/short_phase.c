/* short_phase: a program phase about as long as a few of perf-ring's varied-rate stretches, then a
 * long one (issue 35: each phase must be sampled at the asked rate, not at its stretches' rates).
 * Works in phase_a() for A seconds of its CPU time, then in phase_b() for B seconds, and prints
 * "phase_a SECONDS phase_b SECONDS" (each phase's CPU time, from the thread's CPU clock).
 * Usage: short_phase A B */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile double g_sink;

static double cpuSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

__attribute__((noinline)) void phase_a(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

__attribute__((noinline)) void phase_b(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

/* Runs `work` in slices of about 0.1 ms until `seconds` of CPU time have gone; returns them. */
static double runFor(void (*work)(long), double seconds)
{
    const double start = cpuSeconds();
    double now = start;
    while (now - start < seconds) {
        work(100000);
        now = cpuSeconds();
    }
    return now - start;
}

int main(int argc, char** argv)
{
    const double a = argc > 1 ? atof(argv[1]) : 0.12;
    const double b = argc > 2 ? atof(argv[2]) : 0.9;
    const double spentA = runFor(phase_a, a);
    const double spentB = runFor(phase_b, b);
    printf("phase_a %.6f phase_b %.6f\n", spentA, spentB);
    return 0;
}
