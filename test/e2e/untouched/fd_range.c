/* fd_range: close_range(3, ~0U, 0) closes every descriptor but the standard ones, then pipes are
 * made until descriptors 512 to 517 are in use; a forked child checks each of them is still the
 * pipe end it was and writes a byte into each write end; the parent reads them back. The child's
 * exit status is the number of descriptors it found wrong. Usage: fd_range */
#include "observe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kLow = 512, kHigh = 517 };

static ino_t g_inode[kHigh + 1];
static int g_writeEnd[kHigh + 1];

static int checkInChild(void)
{
    int wrong = 0;
    for (int fd = kLow; fd <= kHigh; ++fd) {
        struct stat st;
        const int same = fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode) && st.st_ino == g_inode[fd];
        if (!same) {
            observe("child: fd %d is no longer the pipe it was (%s)", fd, strerrorname_np(errno));
            ++wrong;
        } else if (g_writeEnd[fd]) {
            const ssize_t wrote = write(fd, "x", 1);
            observe("child write fd %d: %s", fd, outcome(wrote, errno));
            wrong += wrote != 1;
        }
    }
    return wrong;
}

int main(void)
{
    observe("close_range %s", outcome(close_range(3, ~0U, 0), errno));
    int fds[2] = { 0, 0 };
    while (fds[1] < kHigh) {
        if (pipe(fds) != 0) {
            observe("pipe %s", outcome(-1, errno));
            return 1;
        }
        for (int i = 0; i < 2; ++i) {
            struct stat st;
            fstat(fds[i], &st);
            if (fds[i] <= kHigh) {
                g_inode[fds[i]] = st.st_ino;
                g_writeEnd[fds[i]] = i;
            }
        }
    }
    observe("highest descriptor %d", fds[1]);
    const pid_t child = fork();
    if (child == 0)
        exit(checkInChild());
    int status = -1;
    waitpid(child, &status, 0);
    observe("status %d", status);
    for (int fd = kLow; fd <= kHigh; ++fd) {
        if (g_writeEnd[fd])
            continue;
        char byte = 0;
        const int flags = fcntl(fd, F_GETFL);
        fcntl(fd, F_SETFL, flags | O_NONBLOCK);
        const ssize_t got = read(fd, &byte, 1);
        observe("parent read fd %d: %s %c", fd, outcome(got, errno), got == 1 ? byte : '-');
    }
    return 0;
}
