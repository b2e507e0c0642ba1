/* ignored_hup: signal(SIGHUP, SIG_IGN) in main, as nohup'ed programs have it; a child sends
 * SIGHUP to its parent while the parent sleeps 1 s in nanosleep. An ignored signal does not
 * interrupt: the parent sleeps the full second. "inherited": the program ignores SIGHUP and execs
 * itself, as nohup does, so the ignored disposition is there before the collector starts.
 * Usage: ignored_hup [main|inherited] */
#include "observe.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void sleepThroughHup(void)
{
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child == 0) {
        struct timespec pause = { 0, 200 * 1000 * 1000 };
        nanosleep(&pause, NULL);
        kill(parent, SIGHUP);
        _exit(0);
    }
    struct timespec second = { 1, 0 }, left = { 0, 0 };
    const int slept = nanosleep(&second, &left);
    observe("nanosleep returned %s", outcome(slept, errno));
    if (slept == 0)
        observe("slept the full second");
    int status = -1;
    waitpid(child, &status, 0);
    observe("child status %d", status);
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "main";
    if (!strcmp(how, "inherited")) {
        signal(SIGHUP, SIG_IGN);
        execl("/proc/self/exe", argv[0], "after-exec", (char*)NULL);
        observe("exec failed: %s", strerrorname_np(errno));
        return 1;
    }
    if (!strcmp(how, "main"))
        observe("signal %s", signal(SIGHUP, SIG_IGN) == SIG_DFL ? "was SIG_DFL" : "was not SIG_DFL");
    struct sigaction now;
    sigaction(SIGHUP, NULL, &now);
    observe("SIGHUP is %s", now.sa_handler == SIG_IGN ? "SIG_IGN" : "not SIG_IGN");
    sleepThroughHup();
    return 0;
}
