/* fork_child: the parent and a forked child each run their own hot loop; the parent waits.
 * With "first", the parent runs half its loop before it forks (what it sampled then is its own).
 * Usage: fork_child [SCALE [first]] */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

__attribute__((noinline)) double in_parent(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    return s;
}

__attribute__((noinline)) double in_child(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i + 0.5);
    return s;
}

int main(int argc, char** argv)
{
    long n = (argc > 1 ? atol(argv[1]) : 1) * 100000000L;
    double s = argc > 2 ? in_parent(n / 2) : 0;
    pid_t child = fork();
    if (child == 0) {
        printf("child %d %.3f\n", (int)getpid(), in_child(n));
        return 0;
    }
    s += in_parent(argc > 2 ? n / 2 : n);
    int status = 0;
    waitpid(child, &status, 0);
    printf("parent %.3f child-status %d\n", s, status);
    return 0;
}
