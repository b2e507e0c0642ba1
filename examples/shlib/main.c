/* shlib: a program that spends about two thirds of its time in its own shared library
 * (libkernel.so: kernel_sum) and one third in its own code (local_sum).
 * Usage: shlib [MILLIONS]   (default 300) */
#include "kernel.h"

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double local_sum(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i * (double)i);
    return s;
}

int main(int argc, char** argv)
{
    const long millions = argc > 1 ? atol(argv[1]) : 300;
    double a = kernel_sum(millions * 2000000L / 3);
    double b = local_sum(millions * 1000000L / 3);
    printf("shlib: %.12f %.12f\n", a, b);
    return 0;
}
