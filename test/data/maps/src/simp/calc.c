/* calc: integer helpers; one hot and one cold function so -O2 gives .text.hot and .text.unlikely. */
#include <stdio.h>

#include "simp.h"

__attribute__((hot)) long long isqrtll(long long n)
{
    long long r = 0;
    while ((r + 1) * (r + 1) <= n)
        r++;
    return r;
}

__attribute__((cold, noinline)) int usage(const char* prog)
{
    fprintf(stderr, "usage: %s NUMBER\n", prog);
    return 2;
}

long checksum(long seed, int rounds)
{
    long sum = seed;
    for (int i = 0; i < rounds; ++i)
        sum = mix(sum, i);
    return sum + fold(sum);
}
