/* userns: a new user namespace, which the kernel refuses to a multi-threaded process:
 *   main   the program itself unshares (unshare(CLONE_NEWUSER))
 *   child  a forked child unshares
 *   setns  a forked child unshares and waits; the program joins its namespace (setns)
 *   setns-mnt  the same with a mount namespace (CLONE_NEWNS: root only), which the kernel also
 *          refuses to a process of several threads
 *   clone  clone(CLONE_NEWUSER) starts a child in a new namespace
 * Then, as `unshare -Ur` does, it maps its own user and group to root in the new namespace (so that
 * it may still create files) and reads back uid 0.
 * Usage: userns main|child */
#include "observe.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
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

static int waitFor(pid_t child)
{
    int status = -1;
    waitpid(child, &status, 0);
    observe("child status %d", status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* The child makes a namespace of `kind` and says so through the pipe; it stays until the pipe
 * closes. */
static int joinChildNamespace(int kind, const char* name)
{
    int ready[2], done[2];
    if (pipe(ready) != 0 || pipe(done) != 0)
        return 1;
    const pid_t child = fork();
    if (child == 0) {
        char byte = unshare(kind) == 0 ? 'y' : 'n';
        (void)!write(ready[1], &byte, 1);
        close(done[1]);
        (void)!read(done[0], &byte, 1);
        _exit(0);
    }
    char byte = 0;
    (void)!read(ready[0], &byte, 1);
    observe("child made its namespace: %c", byte);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)child, name);
    const int ns = open(path, O_RDONLY | O_CLOEXEC);
    const int joined = setns(ns, kind);
    observe("setns(%s) %s", name, outcome(joined, errno));
    close(done[1]);
    return waitFor(child) | (joined != 0);
}

static char g_stack[64 * 1024];

static int inClone(void* unused)
{
    (void)unused;
    observe("clone child: uid %d", (int)getuid());
    return 0;
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "main";
    if (!strcmp(how, "child")) {
        const pid_t child = fork();
        if (child == 0)
            exit(enter("child"));
        return waitFor(child);
    }
    if (!strcmp(how, "setns"))
        return joinChildNamespace(CLONE_NEWUSER, "user");
    if (!strcmp(how, "setns-mnt"))
        return joinChildNamespace(CLONE_NEWNS, "mnt");
    if (!strcmp(how, "clone")) {
        const pid_t child = clone(inClone, g_stack + sizeof g_stack, CLONE_NEWUSER | SIGCHLD, NULL);
        if (child > 0)
            return waitFor(child);
        observe("clone(CLONE_NEWUSER) %s", outcome(child, errno));
        return 1;
    }
    return enter("main");
}
