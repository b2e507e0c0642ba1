/* sa_restart: a SIGALRM handler installed in main, with SA_RESTART ("restart", the default) or
 * without ("interrupt"); main blocks in read() on a pipe and alarm(1) fires. The handler writes
 * one byte into the pipe, so a restarted read returns 1 and an interrupted one -1 EINTR.
 * Usage: sa_restart [restart|interrupt] */
#include "observe.h"

#include <signal.h>
#include <unistd.h>

static int g_pipe[2];

static void onAlarm(int signal)
{
    (void)signal;
    const int saved = errno;
    (void)!write(g_pipe[1], "x", 1);
    errno = saved;
}

int main(int argc, char** argv)
{
    const int restart = argc < 2 || strcmp(argv[1], "interrupt") != 0;
    struct sigaction action = { 0 };
    action.sa_handler = onAlarm;
    action.sa_flags = restart ? SA_RESTART : 0;
    sigemptyset(&action.sa_mask);
    observe("sigaction %s", outcome(sigaction(SIGALRM, &action, NULL), errno));
    observe("pipe %s", outcome(pipe(g_pipe), errno));
    alarm(1);
    char byte = 0;
    const ssize_t got = read(g_pipe[0], &byte, 1);
    observe("read returned %s", outcome(got, errno));
    if (got < 0) /* the handler's byte is still in the pipe */
        observe("then read %s", outcome(read(g_pipe[0], &byte, 1), errno));
    observe("byte %c", byte);
    return 0;
}
