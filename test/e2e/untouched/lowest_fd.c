/* lowest_fd: open() returns the lowest free descriptor (POSIX), which programs rely on: the daemon
 * idiom closes 0 and opens /dev/null as its standard input. For one second the program opens and
 * closes /dev/null, at 3 and (after closing it) at 0, and counts the times it got another number:
 * a descriptor the collector opens for a moment from its own thread would take the number.
 * Usage: lowest_fd */
#include "observe.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Opens /dev/null, expecting `expected`; returns 1 when it got another descriptor. Afterwards
 * descriptor 0 is open and 3 is free, as they were. */
static int openAt(int expected)
{
    const int fd = open("/dev/null", O_RDONLY);
    const int wrong = fd != expected;
    if (expected == 0 && wrong && fd >= 0)
        dup2(fd, 0);
    if (fd != 0)
        close(fd);
    return wrong;
}

int main(void)
{
    long tries = 0, wrongAt3 = 0, wrongAt0 = 0;
    const double end = now() + 1.0;
    while (now() < end) {
        wrongAt3 += openAt(3);
        close(0);
        wrongAt0 += openAt(0);
        ++tries;
    }
    observe("opened /dev/null often enough: %d", tries > 1000);
    observe("not the lowest free descriptor: %ld times at 3, %ld times at 0", wrongAt3, wrongAt0);
    return 0;
}
