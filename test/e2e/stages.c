/* stages: a small program for the collector's process plumbing (issue 34), built three times
 * (stage_a, stage_b, stage_c) so that an exec chain has three programs.
 *   stage_X                      works about 0.05 s of CPU and returns
 *   stage_X PROGRAM [ARGS...]    works, then execs PROGRAM (an exec chain keeps the pid)
 *   stage_X --spin               works until it is killed
 *   stage_X --fork-exec          forks a child that execs /bin/true at once (before any sample,
 *                                as Open MPI's singleton does with orted), works, waits for it
 *   stage_X --chroot DIR         works, chroot()s into DIR, works again and returns */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double g_sink;

__attribute__((noinline)) void stage_work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

int main(int argc, char** argv)
{
    if (argc > 1 && !strcmp(argv[1], "--fork-exec")) {
        const pid_t child = fork();
        if (child == 0) {
            execl("/bin/true", "true", (char*)NULL);
            _exit(127);
        }
        stage_work(50000000L);
        int status = 0;
        waitpid(child, &status, 0);
        return status;
    }
    stage_work(50000000L);
    if (argc > 1 && !strcmp(argv[1], "--spin"))
        for (;;)
            stage_work(50000000L);
    if (argc > 2 && !strcmp(argv[1], "--chroot")) {
        if (chroot(argv[2]) != 0 || chdir("/") != 0) {
            perror("chroot");
            return 3;
        }
        stage_work(50000000L);
        return 0;
    }
    if (argc > 1) {
        execv(argv[1], argv + 1);
        perror(argv[1]);
        return 127;
    }
    return 0;
}
