/* What the programs of untouched_test.cc share: every observation goes to stdout as one line,
 * flushed at once (the programs fork and die of signals: nothing may stay in a buffer), and names
 * errno by its symbol (EINTR), never by a message or a number that could differ. */
#pragma once
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

__attribute__((format(printf, 1, 2))) static inline void observe(const char* format, ...)
{
    va_list args;
    va_start(args, format);
    vprintf(format, args);
    va_end(args);
    putchar('\n');
    fflush(stdout);
}

/* "0" for a call that succeeded, else "-1 EINTR". */
static inline const char* outcome(long result, int error)
{
    static char text[64];
    if (result >= 0)
        snprintf(text, sizeof text, "%ld", result);
    else
        snprintf(text, sizeof text, "%ld %s", result, strerrorname_np(error) ? strerrorname_np(error) : "E?");
    return text;
}
