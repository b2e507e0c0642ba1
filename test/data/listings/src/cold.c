/* cold: a hot loop with a rare error path, so that gcc -O2 splits code into .text (the
 * functions), .text.unlikely (the cold parts, function.cold) and .text.startup (main). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((cold, noinline)) static void fail(const char* what, long value)
{
    fprintf(stderr, "cold: %s %ld\n", what, value);
    exit(2);
}

long checkedSum(const long* v, int n)
{
    long sum = 0;
    for (int i = 0; i < n; ++i) {
        if (__builtin_expect(v[i] < 0, 0))
            fail("negative value", v[i]);
        sum += v[i];
    }
    return sum;
}

int main(int argc, char** argv)
{
    long v[64];
    for (int i = 0; i < 64; ++i)
        v[i] = argc > 1 ? atol(argv[1]) + i : i;
    if (argc > 2)
        fail("too many arguments", argc);
    printf("%ld\n", checkedSum(v, 64));
    return 0;
}
