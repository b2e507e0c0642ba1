/* vfork_exec: work, vfork + exec of /bin/true in the child (which shares the parent's memory),
 * then more work in the parent. Usage: vfork_exec */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

volatile double g_sink;

__attribute__((noinline)) void work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

int main(void)
{
    work(100000000L);
    pid_t child = vfork();
    if (child == 0) {
        execl("/bin/true", "true", (char*)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(child, &status, 0);
    work(100000000L);
    printf("vfork_exec child status %d\n", status);
    return 0;
}
