/* libkernel.so: the shared library of the shlib example. */
#include "kernel.h"

double kernel_sum(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i * (double)i);
    return s;
}
