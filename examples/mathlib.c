/* mathlib: a C program that spends most of its time inside libm (sin, exp, log, pow), for
 * the report's shared-object table. Usage: mathlib [MILLIONS]  (30 runs for about a second) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv)
{
    const long millions = argc > 1 ? atol(argv[1]) : 30;
    double sum = 0;
    for (long i = 0; i < millions * 1000000; ++i) {
        const double x = (double)(i % 1000) * 0.001 + 0.5;
        sum += sin(x * 3.7) + exp(-x) + log(x) + pow(x, 1.3);
    }
    printf("mathlib: %.6f\n", sum);
    return 0;
}
