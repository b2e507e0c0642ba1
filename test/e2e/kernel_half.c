/* About half its CPU time in the kernel (issue 34): the perf mechanisms sample user time only, so
 * their rate over the whole CPU time is about half the requested one though every sample of the
 * user time was taken. Each round runs a multiply-add chain (user time) and then reads /dev/zero
 * as long (the kernel clears the buffer: system time), timed once at the start, until the process's
 * CPU time reaches the seconds asked for. (Not steered by getrusage's split, which the kernel
 * estimates from its ticks: a program that follows it follows the estimate's errors.) Compiled by
 * the test with the real compiler.
 * Usage: kernel_half [SECONDS] (default 2); exits with status 0. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static volatile unsigned long sink;
static char buffer[1 << 16];

static double cpuSeconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void user_work(void)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < 2000000; i++)
        x = x * 6364136223846793005ul + i;
    sink = x;
}

__attribute__((noinline)) static void kernel_work(int fd)
{
    for (int i = 0; i < 40; i++)
        if (read(fd, buffer, sizeof buffer) != (ssize_t)sizeof buffer)
            exit(2);
}

int main(int argc, char** argv)
{
    const double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    const int fd = open("/dev/zero", O_RDONLY);
    if (fd < 0)
        return 2;
    double start = cpuSeconds();
    user_work();
    const double user = cpuSeconds() - start;
    start = cpuSeconds();
    kernel_work(fd);
    const double kernel = cpuSeconds() - start;
    const long reads = kernel > 0 && user > kernel ? (long)(user / kernel + 0.5) : 1;
    while (cpuSeconds() < seconds) {
        user_work();
        for (long i = 0; i < reads; i++)
            kernel_work(fd);
    }
    printf("%ld reads a round\n", reads);
    return 0;
}
