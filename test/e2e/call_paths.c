/* call_paths: a program of known call structure for the call paths (issue 39), built -O2 as users
 * build (no frame pointer). Each round does 14 units of work:
 *   leaf(), called from caller_a() with 7 units and from caller_b() with 3;
 *   recurse(), 8 calls deep, with 2 units at the bottom (in bottom());
 *   call_paths_apply() of libcall_paths_lib.so, which calls back callback() with 2 units.
 * So leaf's callers take 70:30 of its time, and of all the time: leaf 10/14, caller_a 7/14,
 * caller_b 3/14, recurse 2/14 (bottom under it), callback 2/14 (under call_paths_apply).
 * Usage: call_paths ROUNDS */
#include <stdio.h>
#include <stdlib.h>

double call_paths_apply(double (*fn)(long), long n);

static const long kUnit = 40000;
volatile double g_sink;

#define WORK(n)                                                                                                        \
    double s = 0;                                                                                                      \
    for (long i = 1; i <= (n); ++i)                                                                                    \
        s += 1.0 / (double)i;                                                                                          \
    g_sink = s;                                                                                                        \
    return s

__attribute__((noinline)) double leaf(long n) { WORK(n); }
__attribute__((noinline)) double bottom(long n) { WORK(n); }
__attribute__((noinline)) double callback(long n) { WORK(n); }

__attribute__((noinline)) double caller_a(long units)
{
    const double r = leaf(units * kUnit);
    g_sink = r;
    return r + 1;
}

__attribute__((noinline)) double caller_b(long units)
{
    const double r = leaf(units * kUnit);
    g_sink = r;
    return r * 2;
}

__attribute__((noinline)) double recurse(int depth, long units)
{
    volatile int keep = depth;
    const double r = depth == 0 ? bottom(units * kUnit) : recurse(depth - 1, units);
    return r + keep; /* used after the call: no tail call */
}

int main(int argc, char** argv)
{
    const long rounds = argc > 1 ? atol(argv[1]) : 100;
    double total = 0;
    for (long k = 0; k < rounds; ++k) {
        total += caller_a(7);
        total += caller_b(3);
        total += recurse(8, 2);
        total += call_paths_apply(callback, 2 * kUnit);
    }
    printf("call_paths %f\n", total);
    return 0;
}
