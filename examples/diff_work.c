/* Deterministic work in four functions for `ppeout --diff`: each round, north(), east(), south()
 * and west() run the same loop body n times each (a quarter of the samples each). Built with
 * -DPPE_SLOW_ONE=1, south() runs it twice, as two copies of the loop: the "rebuilt variant whose
 * one function was slowed" of the diff's end-to-end test. south() comes first in the file (and in
 * the code), so that its larger code moves the other three to other addresses, as a rebuild does:
 * the diff must match them by name.
 * A call lasts about 5 ms, ten sampling intervals: a call much shorter than the interval, repeated
 * at a period near it, aliases with the sampler's own period (measured: one function's share off
 * by 12 % between two runs, far beyond binomial noise). Fifty rounds a second spread whatever the
 * machine does meanwhile over the four alike. The loop is a multiply-add chain in a register, its
 * speed independent of where the linker puts it.
 * Built with -DPPE_ALL_FASTER=1 (diff_test.cc, the row that got faster yet gained share): north(),
 * east() and west() run it n/3 times and south() 3n/4, every function faster, south least, so
 * that south's time falls by a quarter while its share rises from 1/4 to 3/7 (0.75 of 1.75).
 * Usage: diff_work [ROUNDS [N]] (default 50 rounds of 4000000); exits with status 0. */
#include <stdio.h>
#include <stdlib.h>

#ifndef PPE_SLOW_ONE
#define PPE_SLOW_ONE 0
#endif
#ifndef PPE_ALL_FASTER
#define PPE_ALL_FASTER 0
#endif
/* How many times south() and each of the other three run the loop body in a round of n. */
#define SOUTH_N(n) (PPE_ALL_FASTER ? (n) / 4 * 3 : (n))
#define OTHER_N(n) (PPE_ALL_FASTER ? (n) / 3 : (n))

volatile unsigned long sink;

static inline __attribute__((always_inline)) void work(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + i; /* each step waits for the last: no vectorising */
    sink = x;
}

__attribute__((noinline)) void south(unsigned long n)
{
    work(SOUTH_N(n));
#if PPE_SLOW_ONE
    work(n);
#endif
}
__attribute__((noinline)) void north(unsigned long n) { work(OTHER_N(n)); }
__attribute__((noinline)) void east(unsigned long n) { work(OTHER_N(n)); }
__attribute__((noinline)) void west(unsigned long n) { work(OTHER_N(n)); }

int main(int argc, char **argv)
{
    const unsigned long rounds = argc > 1 ? strtoul(argv[1], 0, 10) : 50;
    const unsigned long n = argc > 2 ? strtoul(argv[2], 0, 10) : 4000000;
    for (unsigned long r = 0; r < rounds; r++) {
        north(n);
        east(n);
        south(n);
        west(n);
    }
    printf("%lu rounds of %lu%s%s\n", rounds, n, PPE_SLOW_ONE ? " (south slowed 2x)" : "",
        PPE_ALL_FASTER ? " (all faster, south least)" : "");
    return 0;
}
