/* fork_storm: CHILDREN forked one after the other, each computing for MS milliseconds of CPU time
 * and exiting (exit, so that its atexit handlers run, as a real program's would); the parent waits
 * for each. Usage: fork_storm [CHILDREN [MS]]     (default 200 children of 5 ms) */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile double sink;

__attribute__((noinline)) static void compute(long ms)
{
    struct timespec start, now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    double s = 0;
    do {
        for (int i = 1; i < 2000; ++i)
            s += 1.0 / i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < ms * 1000000L);
    sink = s;
}

int main(int argc, char** argv)
{
    const int children = argc > 1 ? atoi(argv[1]) : 200;
    const long ms = argc > 2 ? atol(argv[2]) : 5;
    int failed = 0;
    for (int i = 0; i < children; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            compute(ms);
            exit(0);
        }
        int status = 0;
        if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status))
            ++failed;
    }
    printf("%d children, %d failed\n", children, failed);
    return failed != 0;
}
