// A multiplicative hash over a long sequence.
#include "work.h"

__attribute__((noinline)) unsigned long hash_mix(long n, unsigned seed)
{
    unsigned long h = seed;
    for (long i = 0; i < n; ++i) {
        h ^= (unsigned long)i;
        h *= 0x100000001b3ul;
        h ^= h >> 29;
    }
    return h;
}
