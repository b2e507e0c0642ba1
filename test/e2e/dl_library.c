/* A library for dlopen_close: its one function burns CPU seconds in its own code. Built twice,
 * as libdl_first.so and libdl_second.so, so that the second may be mapped where the first was. */
#include <time.h>

double PPE_DL_FUNCTION(double seconds)
{
    volatile double x = 1.0;
    const clock_t end = clock() + (clock_t)(seconds * CLOCKS_PER_SEC);
    while (clock() < end) {
        for (int i = 0; i < 100000; ++i)
            x = x * 1.0000001 + 1e-9;
    }
    return x;
}
