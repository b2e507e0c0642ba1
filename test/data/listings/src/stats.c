/* stats: a C file whose work is done by inline functions from stats.h. */
#include "stats.h"

double variance(const double* v, int n)
{
    double m = mean(v, n);
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += square(v[i] - m);
    return n > 1 ? s / (n - 1) : 0;
}
