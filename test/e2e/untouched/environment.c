/* environment: the program's environment as it sees it in main, against the one it was started
 * with (the kernel keeps that in /proc/self/environ): nothing added, removed or changed. Prints
 * the names that differ, never values. Usage: environment */
#include "observe.h"

#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

extern char** environ;

static char g_start[1 << 20];
static size_t g_size;

/* The entry of the starting environment named like `entry` (up to '='), or NULL. */
static const char* atStart(const char* entry)
{
    const size_t name = strcspn(entry, "=");
    for (size_t at = 0; at < g_size; at += strlen(g_start + at) + 1) {
        if (!strncmp(g_start + at, entry, name + 1))
            return g_start + at;
    }
    return NULL;
}

static int inEnviron(const char* entry)
{
    const size_t name = strcspn(entry, "=");
    for (char** e = environ; *e; ++e) {
        if (!strncmp(*e, entry, name + 1))
            return 1;
    }
    return 0;
}

int main(void)
{
    const int fd = open("/proc/self/environ", O_RDONLY);
    for (ssize_t got; fd >= 0 && (got = read(fd, g_start + g_size, sizeof g_start - 1 - g_size)) > 0;)
        g_size += (size_t)got;
    int differences = 0;
    for (char** e = environ; *e; ++e) {
        const char* was = atStart(*e);
        if (!was || strcmp(was, *e)) {
            observe("%s: %.*s", was ? "changed" : "added", (int)strcspn(*e, "="), *e);
            ++differences;
        }
    }
    for (size_t at = 0; at < g_size; at += strlen(g_start + at) + 1) {
        if (!inEnviron(g_start + at)) {
            observe("removed: %.*s", (int)strcspn(g_start + at, "="), g_start + at);
            ++differences;
        }
    }
    observe("%d difference(s) from the environment the program started with", differences);
    return 0;
}
