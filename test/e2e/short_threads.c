/* Many short-lived threads, then the main thread's own work (issue 35): argv[1] threads (default
 * 3000), one after another, each spinning for about argv[2] microseconds of CPU time (default
 * 250, half a sampling interval at PPE's 2 kHz), then main spins for argv[3] ms (default 500).
 * perf-ring samples a new thread first after a full interval of its own CPU time and never its
 * last part of one, so most of these threads' samples are missing: the report must name that
 * cause, not kernel throttling. Exits with status 0. */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

__attribute__((noinline)) static void spin_for(double seconds)
{
    const double end = cpu_seconds() + seconds;
    while (cpu_seconds() < end)
        for (int i = 0; i < 1000; i++)
            sink += (unsigned long)i ^ (sink >> 3);
}

static double g_thread_seconds;

__attribute__((noinline)) static void* short_thread(void* unused)
{
    (void)unused;
    spin_for(g_thread_seconds);
    return 0;
}

int main(int argc, char** argv)
{
    const long threads = argc > 1 ? strtol(argv[1], 0, 10) : 3000;
    g_thread_seconds = (argc > 2 ? strtol(argv[2], 0, 10) : 250) * 1e-6;
    const long main_ms = argc > 3 ? strtol(argv[3], 0, 10) : 500;
    for (long i = 0; i < threads; i++) {
        pthread_t t;
        if (pthread_create(&t, 0, short_thread, 0) != 0 || pthread_join(t, 0) != 0)
            return 1;
    }
    spin_for(main_ms * 1e-3);
    return 0;
}
