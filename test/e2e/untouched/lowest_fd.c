/* lowest_fd: the descriptor table is the program's alone. For one second:
 *   lowest      open() returns the lowest free descriptor (POSIX), which programs rely on (the
 *               daemon idiom closes 0 and opens /dev/null as its standard input): the program
 *               opens /dev/null at 3 and, after closing it, at 0, and counts the other numbers
 *   close-loop  the program closes 3 to 15 (what daemons and shells do before they run
 *               something), opens /dev/null and checks 20 times that its descriptor is still
 *               /dev/null, counting the times it was closed or replaced under it
 * A descriptor the collector opens for a moment from its own thread takes the number, or is
 * closed by the program and then closes the program's file. Usage: lowest_fd lowest|close-loop */
#include "observe.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Opens /dev/null, expecting `expected`; returns 1 when it got another descriptor. Afterwards
 * descriptor 0 is open and `expected` is free, as they were. */
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

static long closeLoop(long* tries)
{
    struct stat null;
    stat("/dev/null", &null);
    long lost = 0;
    const double end = now() + 1.0;
    for (*tries = 0; now() < end; ++*tries) {
        for (int fd = 3; fd < 16; ++fd)
            close(fd);
        const int fd = open("/dev/null", O_RDONLY);
        for (int i = 0; i < 20; ++i) {
            struct stat st;
            if (fstat(fd, &st) != 0 || st.st_ino != null.st_ino || st.st_rdev != null.st_rdev) {
                ++lost;
                break;
            }
        }
        close(fd);
    }
    return lost;
}

int main(int argc, char** argv)
{
    long tries = 0;
    if (argc > 1 && !strcmp(argv[1], "close-loop")) {
        const long lost = closeLoop(&tries);
        observe("opened /dev/null often enough: %d", tries > 1000);
        observe("the program's descriptor closed or replaced under it: %ld times", lost);
        return 0;
    }
    /* The lowest free descriptor at the start: 3, unless whatever started the program left one
     * open there (ctest does). */
    const int lowest = open("/dev/null", O_RDONLY);
    close(lowest);
    long wrongAt3 = 0, wrongAt0 = 0;
    const double end = now() + 1.0;
    while (now() < end) {
        wrongAt3 += openAt(lowest);
        close(0);
        wrongAt0 += openAt(0);
        ++tries;
    }
    observe("opened /dev/null often enough: %d", tries > 1000);
    observe("not the lowest free descriptor: %ld times at 3, %ld times at 0", wrongAt3, wrongAt0);
    return 0;
}
