/* w: archive member (libx.a) that nothing references: the linker leaves it out of the program. */
#include "simp.h"

long unused(long v)
{
    return v * 3;
}
