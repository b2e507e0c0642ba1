/* worker_rate: the main thread computes for a moment, creates a thread, and both compute as much,
 * side by side, the same instructions in functions of their own (issue 35): 50:50 in CPU time. A
 * thread keeps for its life the sampling period its creator had when it was made; were that a
 * varied one (period_dither.h), the worker's share would be off by as much. Prints the CPU
 * seconds each function took (the thread clocks around the calls): on a loaded machine the same
 * instructions do not take the same time on both CPUs.
 * Usage: worker_rate [SECONDS] (default 1, each thread). */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

#include "work.h"

volatile unsigned long work_sink = 1;
static long g_rounds;
static double g_worker_seconds;

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

MEASURED void main_work(long n) { WORK(n); }
MEASURED void worker_work(long n) { WORK(n); }

static void* worker(void* unused)
{
    (void)unused;
    double start = cpu_seconds();
    worker_work(g_rounds);
    g_worker_seconds = cpu_seconds() - start;
    return 0;
}

int main(int argc, char** argv)
{
    g_rounds = (long)(work_arg(argc, argv, 1, 1) * 5e8); /* about 2 ns a round */
    double start = cpu_seconds();
    main_work(g_rounds / 4); /* past the first changes of the period */
    double main_seconds = cpu_seconds() - start;
    pthread_t thread;
    if (pthread_create(&thread, 0, worker, 0) != 0)
        return 1;
    start = cpu_seconds();
    main_work(g_rounds * 3 / 4);
    main_seconds += cpu_seconds() - start;
    pthread_join(thread, 0);
    printf("main_work %.6f worker_work %.6f\n", main_seconds, g_worker_seconds);
    return 0;
}
