// Times pthread_create right after each period change of perf-ring (bench/thread_creation.sh):
// the thread computes 120 ms of CPU (past the 50-100 ms between changes), then creates and joins
// an idle thread, N times; prints the mean and worst creation in microseconds.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static void* idle(void* a) { return a; }
static double now(clockid_t c)
{
    struct timespec t;
    clock_gettime(c, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
volatile double sink;
int main(int argc, char** argv)
{
    double total = 0, worst = 0;
    int n = argc > 1 ? atoi(argv[1]) : 30;
    for (int i = 0; i < n; ++i) {
        double until = now(CLOCK_THREAD_CPUTIME_ID) + 0.12;
        while (now(CLOCK_THREAD_CPUTIME_ID) < until)
            sink += 1.0;
        pthread_t t;
        double a = now(CLOCK_MONOTONIC);
        pthread_create(&t, 0, idle, 0);
        double d = now(CLOCK_MONOTONIC) - a;
        pthread_join(t, 0);
        total += d;
        if (d > worst)
            worst = d;
    }
    printf("pthread_create mean %.1f us worst %.1f us\n", total / n * 1e6, worst * 1e6);
    return 0;
}
