/* Two builds of one program for `ppeout --diff`'s row that got faster yet gained share (issue 34):
 * north(), east(), south() and west() run the same loop body as examples/diff_work.c. In the first
 * build each call runs it n times; in the rebuilt one (-DPPE_REBUILT=1) north, east and west run it
 * n/3 times and south 3n/4: every function got faster, south least, so that south's time falls by
 * a quarter while its share rises from 1/4 to 3/7 (0.75 of 1.75). The share alone says "slower";
 * the comparison must show the time's verdict. Compiled by the test with the real compiler.
 * Usage: diff_faster [ROUNDS [N]] (default 50 rounds of 4000000); exits with status 0. */
#include <stdio.h>
#include <stdlib.h>

#ifndef PPE_REBUILT
#define PPE_REBUILT 0
#endif

volatile unsigned long sink;

static inline __attribute__((always_inline)) void work(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + i; /* each step waits for the last: no vectorising */
    sink = x;
}

__attribute__((noinline)) void south(unsigned long n) { work(PPE_REBUILT ? n / 4 * 3 : n); }
__attribute__((noinline)) void north(unsigned long n) { work(PPE_REBUILT ? n / 3 : n); }
__attribute__((noinline)) void east(unsigned long n) { work(PPE_REBUILT ? n / 3 : n); }
__attribute__((noinline)) void west(unsigned long n) { work(PPE_REBUILT ? n / 3 : n); }

int main(int argc, char** argv)
{
    const unsigned long rounds = argc > 1 ? strtoul(argv[1], 0, 10) : 50;
    const unsigned long n = argc > 2 ? strtoul(argv[2], 0, 10) : 4000000;
    for (unsigned long r = 0; r < rounds; r++) {
        north(n);
        east(n);
        south(n);
        west(n);
    }
    printf("%lu rounds of %lu%s\n", rounds, n, PPE_REBUILT ? " (rebuilt: all faster, south least)" : "");
    return 0;
}
