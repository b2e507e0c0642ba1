/* simp: factorisation by trial division, the C program of PPE's Table 1.
 * Usage: simp NUMBER    e.g. simp 1000000000000003 (a few seconds on a current CPU). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ordinal long long /* unsigned __int64 */
#define format "%llu\n"

ordinal sd(ordinal num)
{
    ordinal lim, cnt;
    lim = (ordinal)sqrt((double)num);
    cnt = 2;
    if ((num % cnt) == 0) return cnt;
    for (cnt = 3; cnt <= lim; cnt += 2)
        if ((num % cnt) == 0) return cnt;
    return num;
}

int main(int argc, char** argv)
{
    ordinal word, mul;
    if ((argc != 2) || (sscanf(argv[1], format, &word) != 1))
        printf("usage: simp <number> \n");
    else
        do {
            mul = sd(word);
            word = word / mul;
            printf(format, mul);
        } while (word > 1);
    return 0;
}
