/* blocked_wait: the program blocks SIGTERM and SIGUSR1 (ending signals at their default) and takes
 * them synchronously, as servers do; a child sends both to the process (kill, not to a thread):
 *   sigwait    sigwaitinfo() returns each, with the sender's pid
 *   signalfd   a signalfd reads each
 * Nothing may take them from the program on another thread. Usage: blocked_wait sigwait|signalfd */
#include "observe.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t sendBoth(void)
{
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child == 0) {
        kill(parent, SIGTERM);
        kill(parent, SIGUSR1);
        _exit(0);
    }
    return child;
}

static void takeWithSigwait(const sigset_t* set, pid_t child)
{
    for (int i = 0; i < 2; ++i) {
        siginfo_t info;
        const int got = sigwaitinfo(set, &info);
        observe("sigwaitinfo %s, from the child %d", outcome(got, errno), got > 0 && info.si_pid == child);
    }
}

static void takeWithSignalfd(const sigset_t* set, pid_t child)
{
    const int fd = signalfd(-1, set, SFD_CLOEXEC);
    for (int i = 0; i < 2 && fd >= 0; ++i) {
        struct signalfd_siginfo info;
        const ssize_t got = read(fd, &info, sizeof info);
        observe("signalfd read %s, signal %d, from the child %d", outcome(got, errno),
            got > 0 ? (int)info.ssi_signo : 0, got > 0 && (pid_t)info.ssi_pid == child);
    }
}

int main(int argc, char** argv)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGUSR1);
    observe("sigprocmask %s", outcome(sigprocmask(SIG_BLOCK, &set, NULL), errno));
    const pid_t child = sendBoth();
    int status = -1;
    waitpid(child, &status, 0);
    observe("child status %d", status);
    if (argc > 1 && !strcmp(argv[1], "signalfd"))
        takeWithSignalfd(&set, child);
    else
        takeWithSigwait(&set, child);
    return 0;
}
