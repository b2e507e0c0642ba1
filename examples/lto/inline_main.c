// lto_inline: mix() of inline_mix.c is the hot code; without -flto it is a function of its own
// file, with -flto gcc inlines it into main at link time (issue 24: inlined code counts for the
// caller's file, and the program text shows inline_mix.c's lines inlined into main).
// Usage: lto_inline [SCALE]   (SCALE 1 runs for about a tenth of a second)
#include <stdio.h>
#include <stdlib.h>

unsigned long mix(long n, unsigned seed);

int main(int argc, char** argv)
{
    const long scale = argc > 1 ? atol(argv[1]) : 1;
    unsigned long total = 0;
    for (long rep = 0; rep < scale; ++rep)
        total += mix(40000000, (unsigned)rep);
    printf("%lu\n", total);
    return 0;
}
