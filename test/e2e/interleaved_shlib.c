/* interleaved_shlib: two thirds of its time in the shared library libkernel.so (kernel_sum) and one
 * third in its own code (local_sum), interleaved every few milliseconds, so that any stretch of the
 * run has the shares of the whole. The rounds vary in length (a fixed pseudo-random sequence): a
 * program periodic near the sampling interval is sampled at a few phases only, and its shares then
 * vary from run to run by several points (aliasing). Usage: interleaved_shlib CPU_SECONDS */
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) double local_sum(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i * (double)i);
    return s;
}

static double cpuSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 1.0;
    double s = 0;
    unsigned long state = 12345;
    /* The clock is read every 16 rounds (a system call for a CPU clock): in real-time mode a program
     * waiting for a CPU is sampled where it was preempted, often on the way out of a system call. */
    while (cpuSeconds() < seconds) {
        for (int round = 0; round < 16; ++round) {
            state = state * 6364136223846793005ul + 1442695040888963407ul;
            const long extra = (long)((state >> 33) % 200000ul);
            s += kernel_sum(100000 + extra);
            s += local_sum(50000 + extra / 2);
        }
    }
    printf("interleaved_shlib: %.6f\n", s);
    return 0;
}
