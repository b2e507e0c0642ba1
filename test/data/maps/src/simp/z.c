/* z: archive member (libx.a) pulled in for fold(). */
#include "simp.h"

long fold(long v)
{
    long out = 0;
    while (v) {
        out ^= v & 0xffff;
        v = (long)((unsigned long)v >> 16);
    }
    return out;
}
