/* batch_job: a batch job's stand-in. Works on the CPU (in work(), a loop of divisions) for SECONDS
 * of its CPU time, or with 0 until a signal ends it; prints "working PID" when it has started and, at a
 * normal end, "cpu SECONDS" (its user + system time from getrusage).
 *   own-usr1: a SIGUSR1 handler of its own, which counts and carries on; the count is printed at
 *             the end ("usr1 N"), and the first one also prints "usr1" at once.
 *   memory:   touches MEGABYTES MiB more every second while working (a job outgrowing its memory).
 *   paused:   pauses the profile (ppe_pause, looked up: linked or preloaded) after 0.5 s of CPU and
 *             prints "paused SECONDS", the CPU time then; the work goes on unprofiled.
 * Usage: batch_job SECONDS [own-usr1|memory MEGABYTES|paused] */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

volatile double g_sink;
static volatile sig_atomic_t g_usr1;

static void onUsr1(int sig)
{
    (void)sig;
    if (g_usr1++ == 0)
        write(1, "usr1\n", 5);
}

__attribute__((noinline)) void work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

static double cpuSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void* volatile g_kept; /* the blocks stay reachable: the job only grows */

static void grow(long megabytes)
{
    volatile char* block = malloc((size_t)megabytes << 20);
    if (!block)
        return;
    for (size_t i = 0; i < ((size_t)megabytes << 20); i += 4096)
        block[i] = 1;
    *(void* volatile*)block = g_kept;
    g_kept = (void*)block;
}

int main(int argc, char** argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 1;
    const char* how = argc > 2 ? argv[2] : "";
    const long megabytes = argc > 3 ? atol(argv[3]) : 0;
    if (!strcmp(how, "own-usr1"))
        signal(SIGUSR1, onUsr1);
    printf("working %d\n", (int)getpid());
    fflush(stdout);
    double nextGrowth = 0;
    int (*pauseProfile)(void) = !strcmp(how, "paused") ? (int (*)(void))dlsym(RTLD_DEFAULT, "ppe_pause") : NULL;
    while (seconds <= 0 || cpuSeconds() < seconds) {
        work(2000000);
        if (!strcmp(how, "memory") && cpuSeconds() >= nextGrowth) {
            grow(megabytes);
            nextGrowth = cpuSeconds() + 1;
        }
        if (pauseProfile && cpuSeconds() >= 0.5) {
            const int refused = pauseProfile();
            printf("paused %.3f %d\n", cpuSeconds(), refused);
            fflush(stdout);
            pauseProfile = NULL;
        }
    }
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    printf("cpu %.3f\n",
        (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec
            + (double)usage.ru_stime.tv_usec / 1e6);
    if (g_usr1)
        printf("usr1 %d\n", (int)g_usr1);
    return 0;
}
