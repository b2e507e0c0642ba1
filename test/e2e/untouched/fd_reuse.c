/* fd_reuse: the classic close-everything loop (close 3 to 1023 one by one) closes whatever the
 * collector held; the program then puts its own file at 512 and 513, forks a child that writes to
 * both, and at the very end (a destructor, after exit's handlers) writes to both again: every
 * write lands in the program's file. Usage: fd_reuse FILE */
#include "observe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static ino_t g_inode;

static void writeBoth(const char* who)
{
    for (int fd = 512; fd <= 513; ++fd) {
        struct stat st;
        const int same = fstat(fd, &st) == 0 && st.st_ino == g_inode;
        const ssize_t wrote = write(fd, "x", 1);
        observe("%s: fd %d is the program's file %d, write %s", who, fd, same, outcome(wrote, errno));
    }
}

__attribute__((destructor)) static void atTheEnd(void)
{
    if (g_inode)
        writeBoth("destructor");
}

int main(int argc, char** argv)
{
    if (argc < 2)
        return 2;
    for (int fd = 3; fd < 1024; ++fd)
        close(fd);
    const int fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    struct stat st;
    fstat(fd, &st);
    g_inode = st.st_ino;
    observe("dup2 %s %s", outcome(dup2(fd, 512) == 512 ? 0 : -1, errno), outcome(dup2(fd, 513) == 513 ? 0 : -1, errno));
    close(fd);
    const pid_t child = fork();
    if (child == 0) {
        writeBoth("child");
        g_inode = 0; /* the child's destructor stays quiet */
        exit(0);
    }
    int status = -1;
    waitpid(child, &status, 0);
    observe("child status %d", status);
    writeBoth("main");
    return 0;
}
