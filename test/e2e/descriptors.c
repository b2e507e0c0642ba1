/* descriptors: what a program does with its descriptors around the collector's (issue 33). Each mode
 * prints what the program observes; run bare and under the collector, the output must be the same.
 *   descriptors dup512 FILE    FILE dup2'ed to 512, a forked child writes a line to 512
 *   descriptors pipes          close_range(3, ~0), three pipes on 512-517, a forked child writes into them
 *   descriptors count          how many files a forked child and then the parent can open
 *   descriptors storm N MS     N children forked one after the other, each computing MS ms
 *   descriptors with-limit SOFT HARD|- MODE ARGS   MODE run again (exec) under that RLIMIT_NOFILE
 *   descriptors replace FILE   the soft descriptor limit raised to the hard one, FILE dup2'ed to 512 and over
 *                              every perf event descriptor from 512 up (the collector's), the collector
 *                              re-armed (ppe_set), a line written to each
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double g_sink;

/* Some CPU time in the program's own code, so that a collector takes samples. */
__attribute__((noinline)) static void work(long ms)
{
    struct timespec start, now;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    double s = 0;
    do {
        for (int i = 1; i < 10000; ++i)
            s += 1.0 / i;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000 < ms);
    g_sink = s;
}

static int writeLine(int fd, const char* who)
{
    char line[64];
    const int n = snprintf(line, sizeof(line), "%s wrote to fd %d\n", who, fd);
    if (write(fd, line, (size_t)n) == n)
        return 0;
    dprintf(1, "%s write fd %d: %s\n", who, fd, strerror(errno)); /* unbuffered: a child _exits */
    return 1;
}

static int waitChild(pid_t child)
{
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static int dup512(const char* path)
{
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || dup2(fd, 512) != 512)
        return 2;
    close(fd);
    work(50);
    const pid_t child = fork();
    if (child == 0)
        _exit(writeLine(512, "child"));
    printf("status %d\n", waitChild(child));
    return writeLine(512, "parent");
}

static int pipes(void)
{
    if (syscall(SYS_close_range, 3u, ~0u, 0u) != 0)
        return 2;
    for (int i = 0; i < 3; ++i) {
        int p[2];
        if (pipe(p) != 0 || dup2(p[0], 512 + 2 * i) < 0 || dup2(p[1], 513 + 2 * i) < 0)
            return 2;
        close(p[0]);
        close(p[1]);
    }
    work(50);
    const pid_t child = fork();
    if (child == 0) {
        int failed = 0;
        for (int i = 0; i < 3; ++i)
            failed |= writeLine(513 + 2 * i, "child");
        _exit(failed);
    }
    for (int i = 0; i < 3; ++i)
        close(513 + 2 * i); /* a read ends at the end of the file where the child wrote nothing */
    printf("status %d\n", waitChild(child));
    for (int i = 0; i < 3; ++i) {
        char text[64] = "";
        const ssize_t n = read(512 + 2 * i, text, sizeof(text) - 1);
        printf("fd %d read %s", 512 + 2 * i, n > 0 ? text : "nothing\n");
    }
    return 0;
}

/* Files opened until the limit refuses one; closed again (a collector needs one to write its profile). */
static int openAll(void)
{
    int fds[4096];
    int n = 0;
    while (n < 4096 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
        ++n;
    for (int i = 0; i < n; ++i)
        close(fds[i]);
    return n;
}

static int count(void)
{
    work(20);
    const pid_t child = fork();
    if (child == 0) {
        work(20);
        printf("child opened %d\n", openAll());
        fflush(stdout);
        _exit(0);
    }
    const int status = waitChild(child);
    printf("status %d\nparent opened %d\n", status, openAll());
    return 0;
}

/* RLIMIT_NOFILE set to SOFT (and HARD unless "-"), then MODE ARGS run again by exec, so that a
 * collector starts under that limit. */
static int withLimit(int argc, char** argv)
{
    struct rlimit r;
    getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = strtoul(argv[2], NULL, 10);
    if (strcmp(argv[3], "-"))
        r.rlim_max = strtoul(argv[3], NULL, 10);
    if (setrlimit(RLIMIT_NOFILE, &r) != 0)
        return 2;
    char* again[16] = { argv[0] };
    for (int i = 4; i < argc && i - 3 < 15; ++i)
        again[i - 3] = argv[i];
    execv("/proc/self/exe", again);
    return 2;
}

/* CHILDREN forked one after the other, each computing MS ms and exiting; the parent waits. */
static int storm(int children, long ms)
{
    int failed = 0;
    for (int i = 0; i < children; ++i) {
        const pid_t child = fork();
        if (child == 0) {
            work(ms); /* the parent does none */
            exit(0);
        }
        failed += waitChild(child) != 0;
    }
    printf("%d children, %d failed\n", children, failed);
    return 0;
}

/* The collector's control call, when the collector is there (preloaded or linked); bare it is absent. */
extern int ppe_set(unsigned interval, int mode) __attribute__((weak));

/* The descriptors 512 and up that are perf events (the collector's, when it keeps any), then -1. */
static void perfDescriptors(int* out, int capacity)
{
    int n = 0;
    for (int fd = 512; fd < 70000 && n + 1 < capacity; ++fd) {
        char path[64], target[64] = "";
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
        if (readlink(path, target, sizeof(target) - 1) > 0 && strstr(target, "perf_event"))
            out[n++] = fd;
    }
    out[n] = -1;
}

static int replace(const char* path)
{
    struct rlimit r;
    getrlimit(RLIMIT_NOFILE, &r);
    r.rlim_cur = r.rlim_max < 65536 ? r.rlim_max : 65536; /* every number the program may use */
    setrlimit(RLIMIT_NOFILE, &r);
    int fds[64];
    perfDescriptors(fds, 64);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (fd < 0 || dup2(fd, 512) != 512)
        return 2;
    for (int i = 0; fds[i] >= 0; ++i)
        if (dup2(fd, fds[i]) != fds[i])
            return 2;
    close(fd);
    work(100);
    if (ppe_set)
        ppe_set(5000, 1); /* the collector opens its events again */
    work(100);
    int failed = writeLine(512, "program");
    for (int i = 0; fds[i] >= 0; ++i)
        failed |= writeLine(fds[i], "program");
    printf("status %d\n", failed);
    return 0;
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "dup512") && argc > 2)
        return dup512(argv[2]);
    if (!strcmp(mode, "pipes"))
        return pipes();
    if (!strcmp(mode, "with-limit") && argc > 4)
        return withLimit(argc, argv);
    if (!strcmp(mode, "count"))
        return count();
    if (!strcmp(mode, "storm") && argc > 3)
        return storm(atoi(argv[2]), atol(argv[3]));
    if (!strcmp(mode, "replace") && argc > 2)
        return replace(argv[2]);
    fprintf(stderr,
        "usage: descriptors [with-limit SOFT HARD|-] dup512 FILE | pipes | count | storm N MS | replace FILE\n");
    return 2;
}
