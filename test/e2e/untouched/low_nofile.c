/* low_nofile: a low RLIMIT_NOFILE, and how many files the program can still open (until EMFILE):
 *   soft       soft limit 10, hard unchanged, set in main; the parent and a forked child count
 *   hard       soft and hard limit 10, set in main; the same
 *   soft-exec  soft limit 10, then the program execs itself: the new image starts under it
 *   hard-exec  soft and hard limit 10, then the same
 *   raise-exec soft limit 64 (hard unchanged), the program execs itself, and the new image raises
 *              its soft limit to 128 before it counts, as many programs do at start-up
 * Usage: low_nofile HOW */
#include "observe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

enum { kLimit = 10, kLow = 64, kRaised = 128 };

/* Opens /dev/null until refused, says how many it got and why it stopped, closes them again. */
static void count(const char* who)
{
    int fds[4096];
    int n = 0;
    while (n < 4096 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
        ++n;
    const int error = errno;
    observe("%s opened %d files, then %s", who, n, strerrorname_np(error));
    while (n > 0)
        close(fds[--n]);
}

static void countInChild(void)
{
    const pid_t child = fork();
    if (child == 0) {
        count("child");
        exit(0);
    }
    int status = -1;
    waitpid(child, &status, 0);
    observe("child status %d", status);
}

static int lower(int hardToo, rlim_t soft)
{
    struct rlimit limit;
    getrlimit(RLIMIT_NOFILE, &limit);
    limit.rlim_cur = soft;
    if (hardToo)
        limit.rlim_max = kLimit;
    return setrlimit(RLIMIT_NOFILE, &limit);
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "soft";
    if (!strcmp(how, "after-exec") || !strcmp(how, "raise-after-exec")) {
        struct rlimit limit;
        getrlimit(RLIMIT_NOFILE, &limit);
        observe("started with soft limit %lu", (unsigned long)limit.rlim_cur);
        if (!strcmp(how, "raise-after-exec")) {
            limit.rlim_cur = kRaised;
            observe("raised to %d: %s", kRaised, outcome(setrlimit(RLIMIT_NOFILE, &limit), errno));
        }
    } else {
        const int hardToo = !strncmp(how, "hard", 4);
        const int raise = !strncmp(how, "raise", 5);
        observe("setrlimit %s", outcome(lower(hardToo, raise ? kLow : kLimit), errno));
        if (strstr(how, "-exec")) {
            execl("/proc/self/exe", argv[0], raise ? "raise-after-exec" : "after-exec", (char*)NULL);
            observe("exec failed: %s", strerrorname_np(errno));
            return 1;
        }
    }
    count("parent");
    countInChild();
    return 0;
}
