/* simp: factorisation by trial division (PPE's Table 1 program), split over several
 * compilation units and an archive so its linker maps show every kind of module. */
#include <stdio.h>
#include <stdlib.h>

#include "simp.h"

static long long smallestDivisor(long long num)
{
    long long lim = isqrtll(num);
    if (num % 2 == 0)
        return 2;
    for (long long cnt = 3; cnt <= lim; cnt += 2)
        if (num % cnt == 0)
            return cnt;
    return num;
}

int main(int argc, char** argv)
{
    long long word = argc > 1 ? atoll(argv[1]) : 1000003LL * 1000033LL;
    if (word < 2)
        return usage(argv[0]);
    do {
        long long mul = smallestDivisor(word);
        word /= mul;
        printf("%lld\n", mul);
    } while (word > 1);
    printf("checksum %ld\n", checksum(word, 1000));
    return 0;
}
