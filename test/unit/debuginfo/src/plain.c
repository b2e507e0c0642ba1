/* A C program linked fully static for the debuginfo tests (libc without DWARF). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline, noclone)) static long collatz(long n)
{
    long steps = 0;
    while (n != 1) {
        n = n % 2 ? 3 * n + 1 : n / 2;
        ++steps;
    }
    return steps;
}

int main(int argc, char** argv)
{
    printf("%ld\n", collatz(argc > 1 ? atol(argv[1]) : 27));
    return 0;
}
