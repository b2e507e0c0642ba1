/* vfork_exit: vfork'ed children share the program's memory until they exec or _exit: one calls
 * _exit(7) at once, one fails to exec and calls _exit(127); the program carries on, works a little
 * and returns 0 (its profile must say "exit", not a child's ending). Usage: vfork_exit */
#include "observe.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

volatile double g_sink;

static int statusOf(pid_t child)
{
    int status = -1;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

int main(void)
{
    pid_t child = vfork();
    if (child == 0)
        _exit(7);
    observe("vfork + _exit(7): status %d", statusOf(child));
    child = vfork();
    if (child == 0) {
        execl("/nonexistent/program", "program", (char*)NULL);
        _exit(127);
    }
    observe("vfork + failed exec + _exit(127): status %d", statusOf(child));
    double s = 0;
    for (long i = 1; i <= 30000000L; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
    observe("carried on after the children");
    return 0;
}
