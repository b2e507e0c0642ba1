/* libhidden.so: the hidden example's library, built without unwind tables and stripped, so that
 * its hot internal function has neither a symbol nor an .eh_frame entry: ppeout shows its
 * hottest addresses. */
#include "hidden.h"

static __attribute__((noinline)) double hidden_sum(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / ((double)i * (double)i);
    return s;
}

double hidden_entry(long n) { return hidden_sum(n) + 1.0; }
