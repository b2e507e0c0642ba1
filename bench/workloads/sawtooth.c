/* sawtooth: 256 tiny functions (a few to a few dozen instructions each), called millions of times
 * in all with call counts and lengths that differ by function, so the split is a sawtooth of
 * small shares. The truth is callgrind's instruction count per function (bench/accuracy.sh).
 * Usage: sawtooth [SCALE] (1: about 0.5 s here). */
#include "work.h"

volatile unsigned long work_sink = 1;

/* The 256 functions and their table, by macros (clang-format cannot lay out their expansions). */
// clang-format off
#define TINY(a, b, c) MEASURED void tiny_##a##b##c(void) { WORK(1 + (a * 4 + b + c) % 9); }
#define TINY4(a, b) TINY(a, b, 0) TINY(a, b, 1) TINY(a, b, 2) TINY(a, b, 3)
#define TINY32(a) TINY4(a, 0) TINY4(a, 1) TINY4(a, 2) TINY4(a, 3) TINY4(a, 4) TINY4(a, 5) TINY4(a, 6) TINY4(a, 7)
TINY32(0) TINY32(1) TINY32(2) TINY32(3) TINY32(4) TINY32(5) TINY32(6) TINY32(7)

#define REF(a, b, c) tiny_##a##b##c,
#define REF4(a, b) REF(a, b, 0) REF(a, b, 1) REF(a, b, 2) REF(a, b, 3)
#define REF32(a) REF4(a, 0) REF4(a, 1) REF4(a, 2) REF4(a, 3) REF4(a, 4) REF4(a, 5) REF4(a, 6) REF4(a, 7)
static void (*const tiny[256])(void) = { REF32(0) REF32(1) REF32(2) REF32(3) REF32(4) REF32(5) REF32(6) REF32(7) };
// clang-format on

int main(int argc, char** argv)
{
    long rounds = (long)(40000 * work_arg(argc, argv, 1, 1.0));
    for (long r = 0; r < rounds; r++)
        for (int f = 0; f < 256; f++)
            for (int k = f % 7; k >= 0; k--) /* 1 to 7 calls a round */
                tiny[f]();
    return 0;
}
