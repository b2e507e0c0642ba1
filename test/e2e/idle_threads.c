// N threads wait in pthread_cond_wait while the main thread computes (test/e2e/real_time_test.cc,
// bench/idle_threads.sh): the collector must not signal them, and its cost must not grow with them.
// Usage: idle_threads [THREADS [TERMS]]; prints the compute phase's wall time.
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_cond = PTHREAD_COND_INITIALIZER;
static int g_done;

static void* idle(void* arg)
{
    (void)arg;
    pthread_mutex_lock(&g_lock);
    while (!g_done)
        pthread_cond_wait(&g_cond, &g_lock);
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

__attribute__((noinline)) static double compute(long n)
{
    double x = 0;
    for (long i = 1; i <= n; ++i)
        x += 1.0 / ((double)i * (double)i);
    return x;
}

int main(int argc, char** argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 0;
    long work = argc > 2 ? atol(argv[2]) : 400000000L;
    pthread_t* t = calloc((size_t)threads + 1, sizeof(pthread_t));
    for (int i = 0; i < threads; ++i)
        pthread_create(&t[i], NULL, idle, NULL);
    struct timespec a, b, ca, cb;
    clock_gettime(CLOCK_MONOTONIC, &a);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ca);
    double x = compute(work);
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cb);
    clock_gettime(CLOCK_MONOTONIC, &b);
    printf("compute %.3f s cpu %.3f s (%g)\n", (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9,
        (cb.tv_sec - ca.tv_sec) + (cb.tv_nsec - ca.tv_nsec) / 1e9, x);
    pthread_mutex_lock(&g_lock);
    g_done = 1;
    pthread_cond_broadcast(&g_cond);
    pthread_mutex_unlock(&g_lock);
    for (int i = 0; i < threads; ++i)
        pthread_join(t[i], NULL);
    return 0;
}
