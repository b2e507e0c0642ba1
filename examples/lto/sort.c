// Shell sort of pseudo-random numbers.
#include "work.h"

#include <stdlib.h>

static unsigned next(unsigned* state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 8;
}

__attribute__((noinline)) unsigned long sort_checksum(int n, unsigned seed)
{
    unsigned* v = malloc(sizeof *v * (size_t)n);
    for (int i = 0; i < n; ++i)
        v[i] = next(&seed);
    for (int gap = n / 2; gap > 0; gap /= 2) {
        for (int i = gap; i < n; ++i) {
            const unsigned x = v[i];
            int j = i;
            for (; j >= gap && v[j - gap] > x; j -= gap)
                v[j] = v[j - gap];
            v[j] = x;
        }
    }
    unsigned long sum = 0;
    for (int i = 0; i < n; i += 97)
        sum += v[i];
    free(v);
    return sum;
}
