/* Shared by the benchmark workloads: a unit of pure CPU work that each function runs in its own
 * body (a macro, not a call, so the samples land in the function that is meant to take them), and
 * the argument parsing. noipa keeps GCC from cloning or inlining the functions whose split is
 * measured (a clone would be named work_50.constprop.0 and a tool could not be matched by name). */
#ifndef PPE_BENCH_WORK_H
#define PPE_BENCH_WORK_H
#include <stdlib.h>
#include <time.h>

#define MEASURED __attribute__((noinline, noipa))

extern volatile unsigned long work_sink;

/* n rounds of xorshift: about 2 ns a round here, no memory traffic, no division. */
#define WORK(n)                                                                                                        \
    do {                                                                                                               \
        unsigned long x_ = work_sink | 1;                                                                              \
        for (long i_ = 0; i_ < (long)(n); i_++) {                                                                      \
            x_ ^= x_ << 13;                                                                                            \
            x_ ^= x_ >> 7;                                                                                             \
            x_ ^= x_ << 17;                                                                                            \
            __asm__ volatile("" : "+r"(x_));                                                                           \
        }                                                                                                              \
        work_sink = x_;                                                                                                \
    } while (0)

/* argv[i] as a positive number, or the default. */
static inline double work_arg(int argc, char** argv, int i, double dflt)
{
    if (argc <= i)
        return dflt;
    double v = atof(argv[i]);
    return v > 0 ? v : dflt;
}

/* The calling thread's CPU seconds. */
static inline double work_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* CPU seconds a round of `calibrate` (a MEASURED function running WORK(n)) takes: the fastest of
 * three 10-million-round runs, the least disturbed by other processes. Run under the sampler, so
 * that a loop sized by it takes what it asks, sampling included. */
static inline double work_seconds_per_round(void (*calibrate)(long))
{
    double best = 1e9;
    for (int i = 0; i < 3; i++) {
        double t0 = work_cpu_seconds();
        calibrate(10000000);
        double t = work_cpu_seconds() - t0;
        best = t < best ? t : best;
    }
    return best / 10000000;
}
#endif
