// Primes below a limit by trial division: the example's busiest file.
#include "work.h"

static int is_prime(int n)
{
    if (n < 2)
        return 0;
    for (int d = 2; d * d <= n; ++d) {
        if (n % d == 0)
            return 0;
    }
    return 1;
}

__attribute__((noinline)) unsigned long count_primes(int limit)
{
    unsigned long count = 0;
    for (int n = 0; n < limit; ++n)
        count += (unsigned long)is_prime(n);
    return count;
}
