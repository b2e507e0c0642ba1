/* signal_split: two threads share the work 50:50, and one of them blocks every signal, as the
 * threads of thread pools, I/O layers and language runtimes often do. A signal profiler never
 * samples that thread; perf-ring does (test/e2e/ring_test.cc).
 * Usage: signal_split [SCALE]. Prints "open RESULT blocked RESULT". */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double work_open(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    return s;
}

__attribute__((noinline)) double work_blocked(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i + 0.5);
    return s;
}

static long g_n;
static double g_blocked;

static void* blocking_thread(void* arg)
{
    (void)arg;
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    g_blocked = work_blocked(g_n);
    return NULL;
}

int main(int argc, char** argv)
{
    g_n = (argc > 1 ? atol(argv[1]) : 1) * 100000000L;
    pthread_t thread;
    if (pthread_create(&thread, NULL, blocking_thread, NULL) != 0)
        return 1;
    double open = work_open(g_n);
    pthread_join(thread, NULL);
    printf("open %.3f blocked %.3f\n", open, g_blocked);
    return 0;
}
