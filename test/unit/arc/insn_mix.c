/* Code for the ARC instruction decoder's golden test (instruction_test.cc): a little of what C
   compiles to (calls direct and through pointers, a jump table, loops, recursion, 64-bit and
   floating-point arithmetic, large constants, globals, byte and halfword accesses, varargs).
   Built by CMake with arc-linux-gnu-gcc-12 at -O0, -O2 and -Os -mcode-density-frame; never run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static volatile unsigned counter;
static unsigned char bytes[256];
static short halves[64];
static jmp_buf where;

static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static int twice(int x) { return 2 * x; }
static int square(int x) { return x * x; }
static int (*const operations[])(int) = { twice, square, fib };

static int pick(int kind, int x)
{
    switch (kind) {
    case 0:
        return x + 0x12345678;
    case 1:
        return x ^ 0x5a5a5a5a;
    case 2:
        return x * 1000003;
    case 3:
        return x / 7;
    case 4:
        return x % 13;
    case 5:
        return (int)((unsigned)x >> 3);
    case 6:
        return x << 5;
    default:
        return -x;
    }
}

static long long wide(long long a, long long b) { return a * b + a / (b | 1) - (a % 977); }

static double mix(double a, float b) { return a * b + (double)b / (a + 1.5); }

static int sum(int n, ...)
{
    va_list args;
    va_start(args, n);
    int total = 0;
    for (int i = 0; i < n; i++)
        total += va_arg(args, int);
    va_end(args);
    return total;
}

static void fill(int seed)
{
    for (int i = 0; i < 256; i++)
        bytes[i] = (unsigned char)(seed * i + 3);
    for (int i = 0; i < 64; i++)
        halves[i] = (short)(bytes[i] * 300 - seed);
}

static unsigned checksum(void)
{
    unsigned s = 0;
    for (int i = 0; i < 256; i++)
        s = (s << 1 | s >> 31) ^ bytes[i];
    for (int i = 0; i < 64; i++)
        s += (unsigned)halves[i];
    return s;
}

int main(int argc, char** argv)
{
    if (setjmp(where))
        return 3;
    fill(argc);
    int x = argc;
    for (int i = 0; i < 24; i++) {
        x = pick(i % 9, x) + operations[i % 3](i % 20);
        counter += (unsigned)x;
    }
    char text[64];
    snprintf(text, sizeof text, "%d %u %lld %g", x, checksum(), wide(x, argc + 5), mix(x, 1.25f));
    if (strlen(text) > 60 && argv[0][0] == 'z')
        longjmp(where, 1);
    puts(text);
    return sum(4, x, argc, 7, (int)counter) & 1;
}
