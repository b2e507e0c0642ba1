/* memory: a random pointer chase through 64 MiB (one cycle through every slot, Sattolo's
 * shuffle), so nearly every step misses the caches and the TLB: a memory-bound program for
 * bench/overhead.sh. Usage: memory [SCALE] (1: about 0.5 s here). */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED size_t chase(const size_t* next, long steps)
{
    size_t i = 0;
    for (long s = 0; s < steps; s++)
        i = next[i];
    return i;
}

int main(int argc, char** argv)
{
    const size_t n = (64u << 20) / sizeof(size_t);
    size_t* next = malloc(n * sizeof *next);
    if (!next)
        return 1;
    for (size_t i = 0; i < n; i++)
        next[i] = i;
    unsigned long x = 88172645463325252UL;
    for (size_t i = n - 1; i > 0; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t j = x % i, t = next[i];
        next[i] = next[j], next[j] = t;
    }
    work_sink = chase(next, (long)(1500000 * work_arg(argc, argv, 1, 1.0)));
    free(next);
    return 0;
}
