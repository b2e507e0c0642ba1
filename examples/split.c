/* A known split of the time for checking samplers: six(), three() and one() run the same loop
 * body 6, 3 and 1 times as often, so 60 %, 30 % and 10 % of the samples that land in the three
 * are the truth. Runs for argv[1] milliseconds (default 2000), argv[2] iterations of one() a round
 * (default 20000) or, given argv[3], exactly that many rounds whatever the time (a fixed amount of
 * work, for measuring a slowdown); exits with status 0. Used by ppe-arc's tests through gdbserver, qemu-aarch64
 * and qemu-arc, and as the ARC end-to-end example. */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void six(unsigned long n)
{
    for (unsigned long i = 0; i < 6 * n; i++)
        sink += i ^ (sink >> 3); /* 60 % of the time */
}

__attribute__((noinline)) void three(unsigned long n)
{
    for (unsigned long i = 0; i < 3 * n; i++)
        sink += i ^ (sink >> 3); /* 30 % */
}

__attribute__((noinline)) void one(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i ^ (sink >> 3); /* 10 % */
}

static long elapsed_ms(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

int main(int argc, char **argv)
{
    long ms = argc > 1 ? strtol(argv[1], 0, 10) : 2000;
    unsigned long n = argc > 2 ? strtoul(argv[2], 0, 10) : 20000;
    long rounds = argc > 3 ? strtol(argv[3], 0, 10) : -1;
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        six(n);
        three(n);
        one(n);
    } while (rounds < 0 ? elapsed_ms(&start) < ms : --rounds > 0);
    return 0;
}
