/* fd512: the program puts a file of its own at descriptor 512 (dup2) and forks helpers that write
 * to it: one with write(512), one that makes 512 its standard output and execs /bin/echo. The
 * file then holds both lines. Usage: fd512 FILE */
#include "observe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kFd = 512 };

static int waitFor(pid_t child)
{
    int status = -1;
    waitpid(child, &status, 0);
    return status;
}

static int writer(void)
{
    const pid_t child = fork();
    if (child == 0) {
        struct stat st;
        const int isFile = fstat(kFd, &st) == 0 && S_ISREG(st.st_mode);
        const char text[] = "written by the forked child\n";
        const ssize_t wrote = write(kFd, text, sizeof text - 1);
        observe("child: fd %d is a regular file %d, write %s", kFd, isFile, outcome(wrote, errno));
        exit(wrote == sizeof text - 1 ? 0 : 1);
    }
    return waitFor(child);
}

static int echoer(void)
{
    const pid_t child = fork();
    if (child == 0) {
        if (dup2(kFd, 1) != 1)
            _exit(126);
        execl("/bin/echo", "echo", "written by echo", (char*)NULL);
        _exit(127);
    }
    return waitFor(child);
}

int main(int argc, char** argv)
{
    if (argc < 2)
        return 2;
    const int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    observe("dup2 to %d: %s", kFd, outcome(dup2(fd, kFd), errno));
    close(fd);
    observe("writer status %d", writer());
    observe("echo status %d", echoer());
    close(kFd);
    char text[256] = "";
    const int in = open(argv[1], O_RDONLY);
    const ssize_t got = read(in, text, sizeof text - 1);
    text[got > 0 ? got : 0] = 0;
    observe("the file holds:\n%s(end)", text);
    return 0;
}
