/* timer_loop: work that is periodic in wall time (issue 35): every TICK_US microseconds of the
 * monotonic clock the program computes BUSY_US microseconds of CPU time, timer_a 70 % of it and
 * timer_b 30 %, and sleeps until the next tick. Under real-time mode the CPU samples fall in the
 * bursts; with a fixed period of 500 us and bursts of 400 us of CPU the sample's place in a burst
 * advances 100 us a burst: four places, the same ones all run long (75:25 or 50:50, never 70:30).
 * The bursts are calibrated at start, under the sampler, like bench's aliasing loop; the CPU time
 * each function took (the thread's CPU clock around each call) is printed at the end as
 * "timer_a SECONDS timer_b SECONDS", the truth a profile is held to.
 * Usage: timer_loop [SECONDS] [TICK_US] [BUSY_US]   (defaults 2, 1000, 400). Exits with 0. */
#include <stdio.h>
#include <time.h>

#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED void timer_a(long n) { WORK(n); }
MEASURED void timer_b(long n) { WORK(n); }
MEASURED void calibrate(long n) { WORK(n); }

static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char** argv)
{
    double seconds = work_arg(argc, argv, 1, 2);
    long tick_ns = (long)(work_arg(argc, argv, 2, 1000) * 1000);
    double busy = work_arg(argc, argv, 3, 400) * 1e-6;
    long per_burst = (long)(busy / work_seconds_per_round(calibrate));
    long a = per_burst * 7 / 10, b = per_burst - a;
    double a_seconds = 0, b_seconds = 0;
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (long tick = 0; tick < (long)(seconds * 1e9 / tick_ns); tick++) {
        double t0 = cpu_seconds();
        timer_a(a);
        double t1 = cpu_seconds();
        timer_b(b);
        a_seconds += t1 - t0;
        b_seconds += cpu_seconds() - t1;
        next.tv_nsec += tick_ns;
        while (next.tv_nsec >= 1000000000) {
            next.tv_nsec -= 1000000000;
            next.tv_sec++;
        }
        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, 0) != 0) { }
    }
    printf("timer_a %.6f timer_b %.6f\n", a_seconds, b_seconds);
    return 0;
}
