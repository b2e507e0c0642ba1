/* userns: unshare(CLONE_NEWUSER), which the kernel refuses to a multi-threaded process:
 *   main   the program itself unshares
 *   child  a forked child unshares
 * Then, as `unshare -Ur` does, it maps its own user and group to root in the new namespace (so that
 * it may still create files) and reads back uid 0.
 * Usage: userns main|child */
#include "observe.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static int writeFile(const char* path, const char* text)
{
    const int fd = open(path, O_WRONLY);
    const int ok = fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text);
    if (fd >= 0)
        close(fd);
    return ok ? 0 : -1;
}

static int mapToRoot(uid_t uid, gid_t gid)
{
    char map[64];
    snprintf(map, sizeof map, "0 %d 1", (int)uid);
    if (writeFile("/proc/self/uid_map", map) != 0 || writeFile("/proc/self/setgroups", "deny") != 0)
        return -1;
    snprintf(map, sizeof map, "0 %d 1", (int)gid);
    return writeFile("/proc/self/gid_map", map);
}

static int enter(const char* who)
{
    const uid_t uid = getuid();
    const gid_t gid = getgid();
    const int result = unshare(CLONE_NEWUSER);
    observe("%s: unshare(CLONE_NEWUSER) %s", who, outcome(result, errno));
    if (result != 0)
        return 1;
    observe("%s: uid and gid mapped to root %s", who, outcome(mapToRoot(uid, gid), errno));
    observe("%s: uid now %d, gid now %d", who, (int)getuid(), (int)getgid());
    return 0;
}

int main(int argc, char** argv)
{
    if (argc > 1 && !strcmp(argv[1], "child")) {
        const pid_t child = fork();
        if (child == 0)
            exit(enter("child"));
        int status = -1;
        waitpid(child, &status, 0);
        observe("child status %d", status);
        return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
    }
    return enter("main");
}
