/* fork_storm: 200 children, one after the other, each busy for 5 ms of wall time and ending with
 * exit(i % 7); the parent checks every status. Usage: fork_storm [CHILDREN] */
#include "observe.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(int argc, char** argv)
{
    const int children = argc > 1 ? atoi(argv[1]) : 200;
    int wrong = 0;
    for (int i = 0; i < children; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            const double end = now() + 0.005;
            while (now() < end)
                ;
            exit(i % 7);
        }
        int status = -1;
        if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != i % 7)
            ++wrong;
    }
    observe("%d children, %d with a wrong status", children, wrong);
    return wrong ? 1 : 0;
}
