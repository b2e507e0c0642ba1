// A program whose functions count their own calls (ppe-arc calls, issue 37): a recursive fib, a
// function called from a loop and a leaf called twice from it. It prints the counts, so a test knows
// the truth from the program itself, and its result, so a test sees that breakpoints changed nothing.
#include <stdio.h>
#include <stdlib.h>

static volatile unsigned fib_calls, leaf_calls, twice_calls;

__attribute__((noinline, noipa)) int fib(int n)
{
    ++fib_calls;
    return n < 2 ? n : (fib(n - 1) + fib(n - 2)) % 1000003;
}

__attribute__((noinline, noipa)) int leaf(int x)
{
    ++leaf_calls;
    return x * x % 97;
}

__attribute__((noinline, noipa)) int twice(int x)
{
    ++twice_calls;
    return leaf(x) + leaf(x + 1);
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 15;
    const int rounds = argc > 2 ? atoi(argv[2]) : 100;
    int sum = 0;
    for (int i = 0; i < rounds; ++i)
        sum += twice(i);
    printf("fib(%d) = %d, sum %d\n", n, fib(n), sum);
    printf("calls fib %u twice %u leaf %u\n", fib_calls, twice_calls, leaf_calls);
    return 0;
}
