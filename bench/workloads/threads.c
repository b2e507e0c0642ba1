/* threads: THREADS threads (4 by default; 16 for the many-threaded overhead row), thread i running
 * worker_40, worker_30, worker_20 or worker_10 (i % 4) for its share of the work: with 4 threads
 * 40/30/20/10 %. The truth is callgrind's instruction count per function (bench/accuracy.sh).
 * Usage: threads [SCALE] [THREADS] (1: about 0.5 s of CPU time here). */
#include <pthread.h>
#include <stdint.h>

#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED void worker_40(long n) { WORK(n); }
MEASURED void worker_30(long n) { WORK(n); }
MEASURED void worker_20(long n) { WORK(n); }
MEASURED void worker_10(long n) { WORK(n); }

static long unit; /* iterations of one percent of the work, per thread group */
static int threads;

static void* run(void* arg)
{
    int kind = (int)(intptr_t)arg % 4;
    long n = unit * (40 - 10 * kind) * 4 / threads;
    void (*const fn[4])(long) = { worker_40, worker_30, worker_20, worker_10 };
    for (long done = 0; done < n; done += 10000) /* chunks, as a real worker would */
        fn[kind](10000);
    return 0;
}

int main(int argc, char** argv)
{
    unit = (long)(2600000 * work_arg(argc, argv, 1, 1.0));
    threads = (int)work_arg(argc, argv, 2, 4);
    pthread_t t[256];
    if (threads > 256)
        threads = 256;
    for (int i = 0; i < threads; i++)
        pthread_create(&t[i], 0, run, (void*)(intptr_t)i);
    for (int i = 0; i < threads; i++)
        pthread_join(t[i], 0);
    return 0;
}
