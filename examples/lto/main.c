// lto: a C program of several files for the link-time optimisation tests (issue 24), built with
// and without -flto. Usage: lto [SCALE]   (SCALE 1 runs for about a tenth of a second)
// The work splits about 5 : 3 : 2 between sieve.c, sort.c and hash.c. Their hot functions are
// noinline: link-time inlining would move their time into main.c (the caller's module, as the
// line analysis counts inlined code), and the tables with and without -flto are to agree.
#include "work.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    const long scale = argc > 1 ? atol(argv[1]) : 1;
    unsigned long total = 0;
    // The limit varies: count_primes is pure, and with -flto gcc would call it once for all reps.
    for (long rep = 0; rep < 6 * scale; ++rep)
        total += count_primes(150000 + (int)(rep % 7));
    for (long rep = 0; rep < 4 * scale; ++rep)
        total += sort_checksum(60000, (unsigned)rep);
    for (long rep = 0; rep < 2 * scale; ++rep)
        total += hash_mix(5000000, (unsigned)rep);
    printf("%lu\n", total);
    return 0;
}
