/* stderr_eof: a child whose standard error is a pipe to its parent closes it and lives on for a
 * second (as a daemon closes its standard descriptors): the parent reads end-of-file at once,
 * while the child still runs; no one else may hold the pipe open. Usage: stderr_eof */
#include "observe.h"

#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
    int fds[2];
    if (pipe(fds) != 0)
        return 1;
    const pid_t child = fork();
    if (child == 0) {
        dup2(fds[1], 2);
        close(fds[0]);
        close(fds[1]);
        close(2);
        struct timespec second = { 1, 0 };
        nanosleep(&second, NULL);
        _exit(0);
    }
    close(fds[1]);
    char byte;
    const ssize_t got = read(fds[0], &byte, 1);
    int status = 0;
    observe("read %s, the child still running %d", outcome(got, errno), waitpid(child, &status, WNOHANG) == 0);
    waitpid(child, &status, 0);
    observe("child status %d", status);
    return 0;
}
