/* short_threads: THREADS short threads (2000 at SCALE 1), two at a time, each running 0.1 to 1 ms
 * of CPU time here (ten lengths in turn, 52 000 to 520 000 rounds) split 50:30:20 over short_a,
 * short_b and short_c; then short_main in the main thread for about 0.25 s. Thread pools that spawn
 * per task and runtimes that create teams look like this. The truth is callgrind's instruction count
 * per function (bench/accuracy.sh); the split is the same at every scale (the thread count is a
 * multiple of ten, so each length occurs equally often). A sampler that starts every new thread a
 * full interval before its first sample, or drops each thread's last partial interval, gives the
 * threads too little and short_main too much; its sample count falls short of CPU time x rate.
 * Usage: short_threads [SCALE] (1: about 1.2 s of CPU time here). */
#include <pthread.h>
#include <stdint.h>

#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED void short_a(long n) { WORK(n); }
MEASURED void short_b(long n) { WORK(n); }
MEASURED void short_c(long n) { WORK(n); }
MEASURED void short_main(long n) { WORK(n); }

enum { kRoundsPerTenth = 52000 }; /* about 0.1 ms of CPU time here */

static void* run(void* arg)
{
    long n = kRoundsPerTenth * (1 + (long)(intptr_t)arg % 10);
    short_a(n * 5 / 10);
    short_b(n * 3 / 10);
    short_c(n * 2 / 10);
    return 0;
}

int main(int argc, char** argv)
{
    double scale = work_arg(argc, argv, 1, 1.0);
    long threads = 10 * (long)(200 * scale + 0.5);
    if (threads < 10)
        threads = 10;
    for (long i = 0; i < threads; i += 2) {
        pthread_t a, b;
        pthread_create(&a, 0, run, (void*)(intptr_t)i);
        pthread_create(&b, 0, run, (void*)(intptr_t)(i + 1));
        pthread_join(a, 0);
        pthread_join(b, 0);
    }
    short_main((long)(130000000 * scale));
    return 0;
}
