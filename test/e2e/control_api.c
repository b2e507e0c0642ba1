/* control_api: profiles only hot_b with the C control calls, at a 0.1 ms CPU-time interval.
 * hot_a runs as long as hot_b, so its samples show up outside the range.
 * Usage: control_api [SCALE] */
#include "ppe.h"

#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double hot_a(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    return s;
}

__attribute__((noinline)) double hot_b(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    return s;
}

int main(int argc, char** argv)
{
    long n = (argc > 1 ? atol(argv[1]) : 1) * 50000000L;
    int status = ppe_init((const void*)hot_b, (const char*)hot_b + 64, 0);
    status |= ppe_set(1000, 1);
    status |= ppe_start();
    double a = hot_a(n);
    double b = hot_b(n);
    printf("control_api %d %.6f %.6f\n", status, a, b);
    return 0;
}
