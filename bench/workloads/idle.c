/* idle: with no argument, exits at once (bench/startup.sh's start-up cost). With `hold`, works for
 * about 0.2 s of CPU time here (so a collector's histogram is touched), prints "ready" and waits for
 * its standard input to close, so the script can read its /proc/PID files while it lives. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "work.h"

volatile unsigned long work_sink = 1;

MEASURED void busy(long n) { WORK(n); }

int main(int argc, char** argv)
{
    if (argc < 2 || strcmp(argv[1], "hold") != 0)
        return 0;
    busy(100000000);
    printf("ready\n");
    fflush(stdout);
    char buf[64];
    while (read(0, buf, sizeof buf) > 0) { }
    return 0;
}
