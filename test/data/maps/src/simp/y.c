/* y: archive member (libx.a) pulled in for mix(). */
#include "simp.h"

static long rotate(long v, int by)
{
    return (long)(((unsigned long)v << by) | ((unsigned long)v >> (64 - by)));
}

long mix(long v, int i)
{
    return rotate(v ^ (i * 0x9e3779b9L), 13) + i;
}
