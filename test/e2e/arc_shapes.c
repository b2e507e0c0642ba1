/* arc_shapes.c (test/e2e/arc_qemu_bias_test.cc): two functions of different code shape: branchy() runs many small basic
 * blocks (a computed switch over 64 cases), tight() one tight loop. Usage: shapes MODE N  (MODE: both, branchy, tight).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

#define CASE(k)                                                                                                        \
    case k:                                                                                                            \
        x = x * (2 * k + 1) + (x >> (k % 7 + 1)) ^ k;                                                                  \
        break;
__attribute__((noinline)) void branchy(unsigned long n)
{
    unsigned long x = sink + 1;
    for (unsigned long i = 0; i < n; i++) {
        /* 64 cases, one small block each; clang-format reflows the macro calls without end */
        // clang-format off
        switch ((x ^ i) & 63) {
            CASE(0) CASE(1) CASE(2) CASE(3) CASE(4) CASE(5) CASE(6) CASE(7)
            CASE(8) CASE(9) CASE(10) CASE(11) CASE(12) CASE(13) CASE(14) CASE(15)
            CASE(16) CASE(17) CASE(18) CASE(19) CASE(20) CASE(21) CASE(22) CASE(23)
            CASE(24) CASE(25) CASE(26) CASE(27) CASE(28) CASE(29) CASE(30) CASE(31)
            CASE(32) CASE(33) CASE(34) CASE(35) CASE(36) CASE(37) CASE(38) CASE(39)
            CASE(40) CASE(41) CASE(42) CASE(43) CASE(44) CASE(45) CASE(46) CASE(47)
            CASE(48) CASE(49) CASE(50) CASE(51) CASE(52) CASE(53) CASE(54) CASE(55)
            CASE(56) CASE(57) CASE(58) CASE(59) CASE(60) CASE(61) CASE(62) CASE(63)
        }
        // clang-format on
    }
    sink = x;
}

__attribute__((noinline)) void tight(unsigned long n)
{
    unsigned long x = sink;
    for (unsigned long i = 0; i < n; i++)
        x = x * 3 + i;
    sink = x;
}

int main(int argc, char** argv)
{
    const char* mode = argc > 1 ? argv[1] : "both";
    const unsigned long n = argc > 2 ? strtoul(argv[2], 0, 10) : 1000000;
    for (int round = 0; round < 100; round++) {
        if (strcmp(mode, "tight") != 0)
            branchy(n / 100);
        if (strcmp(mode, "branchy") != 0)
            tight(n / 100 * 4);
    }
    printf("%lu\n", sink);
    return 0;
}
