/* The program the GDB remote transcripts and live tests run: spends argv[1] milliseconds (default
 * 2000) in work(), then exits with status 42, so a test can tell it ran to completion; writes
 * "exit 42" to the file argv[2] first, if given (for a parent that cannot see the status). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void work(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++)
        sink += i * i;
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
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    while (elapsed_ms(&start) < ms)
        work(100000);
    if (argc > 2) {
        FILE *done = fopen(argv[2], "w");
        if (done) {
            fputs("exit 42\n", done);
            fclose(done);
        }
    }
    return 42;
}
