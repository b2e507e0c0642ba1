/* stats: static inline helpers in a header; their code is attributed to this file. */
#ifndef STATS_H
#define STATS_H

static inline double square(double x)
{
    return x * x;
}

static inline double mean(const double* v, int n)
{
    double s = 0;
    for (int i = 0; i < n; ++i)
        s += v[i];
    return n ? s / n : 0;
}

#endif
