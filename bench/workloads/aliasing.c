/* aliasing: a hot loop whose period is one sampling interval of CPU time, alias_a taking 70 % of
 * it and alias_b 30 %. A sampler whose ticks keep the same phase in the loop sees only one of
 * them; one with jitter or a period that drifts sees the true 70:30. The loop's iteration counts
 * are calibrated at start to PERIOD_US of CPU time, so the truth is by construction 70:30 of the
 * same instructions (callgrind's counts confirm it; bench/accuracy.sh).
 * Usage: aliasing [SCALE] [PERIOD_US] (1: about 0.5 s here; 500 us = 2 kHz). */
#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED void alias_a(long n) { WORK(n); }
MEASURED void alias_b(long n) { WORK(n); }
MEASURED void calibrate(long n) { WORK(n); }

int main(int argc, char** argv)
{
    double scale = work_arg(argc, argv, 1, 1.0);
    double period = work_arg(argc, argv, 2, 500) * 1e-6;
    long per_period = (long)(period / work_seconds_per_round(calibrate));
    long a = per_period * 7 / 10, b = per_period - a;
    long periods = (long)(0.5 * scale / period);
    for (long p = 0; p < periods; p++) {
        alias_a(a);
        alias_b(b);
    }
    return 0;
}
