/* calibrated: four functions doing 50, 30, 15 and 5 % of the work in interleaved chunks of about
 * 0.1 ms, so no sampler sees one phase after another. The truth is callgrind's instruction count
 * per function (bench/accuracy.sh). Usage: calibrated [SCALE] (1: about 0.5 s here). */
#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED void work_50(long n) { WORK(n); }
MEASURED void work_30(long n) { WORK(n); }
MEASURED void work_15(long n) { WORK(n); }
MEASURED void work_05(long n) { WORK(n); }

int main(int argc, char** argv)
{
    long rounds = (long)(2600 * work_arg(argc, argv, 1, 1.0));
    for (long r = 0; r < rounds; r++) {
        work_50(50000);
        work_30(30000);
        work_15(15000);
        work_05(5000);
    }
    return 0;
}
