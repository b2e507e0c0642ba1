/* interleaved_shlib: two thirds of its time in the shared library libkernel.so (kernel_sum) and one
 * third in its own code (local_sum), interleaved every few milliseconds, so that any stretch of the
 * run has the shares of the whole. Usage: interleaved_shlib CPU_SECONDS */
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
    /* The clock is read every 16 rounds (a system call for a CPU clock): in real-time mode a program
     * waiting for a CPU is sampled where it was preempted, often on the way out of a system call. */
    while (cpuSeconds() < seconds) {
        for (int round = 0; round < 16; ++round) {
            s += kernel_sum(200000);
            s += local_sum(100000);
        }
    }
    printf("interleaved_shlib: %.6f\n", s);
    return 0;
}
