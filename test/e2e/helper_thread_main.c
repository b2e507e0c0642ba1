/* A program whose main thread computes and waits in its own code (wait_own: usleep, 0.6 s) and
 * whose own worker thread waits in its code too (wait_worker: 0.3 s), while a
 * library's helper thread (helper_thread_lib.c) waits in poll() all the run, longer than the
 * program's own waits. Usage: helper_thread_main; exits with status 0. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

void helper_stop(void);

volatile unsigned long sink;

__attribute__((noinline)) static void compute(void)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < 300000000ul; i++)
        x = x * 6364136223846793005ul + i;
    sink = x;
}

__attribute__((noinline)) static void wait_own(void)
{
    for (int i = 0; i < 30; i++)
        usleep(20000); /* 0.6 s in all */
}

__attribute__((noinline)) static void* wait_worker(void* unused)
{
    (void)unused;
    for (int i = 0; i < 15; i++)
        usleep(20000); /* 0.3 s in all */
    return 0;
}

int main(void)
{
    pthread_t worker;
    if (pthread_create(&worker, 0, wait_worker, 0) != 0)
        return 1;
    compute();
    wait_own();
    compute();
    pthread_join(worker, 0);
    helper_stop();
    printf("done\n");
    return 0;
}
