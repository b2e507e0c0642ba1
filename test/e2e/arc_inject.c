// A program for code injection (ppe-arc calls --method inject, issue 37): arc_calls.c's functions (a
// recursive fib, twice called from a loop, leaf called from two sites in twice) counting their own
// calls, so a test knows the truth from the program itself, and printing their result, so a test
// sees the trampolines changed nothing. Its code is made writable by the program: qemu-arc 7.0's
// stub refuses a write to any page it holds translated code for (E14), even one the program
// mapped writable, until the program's next mprotect of it; so each measured function sits on a
// page of its own (its section, 16 KiB aligned) which the program mprotects at start (a
// constructor, before main, where ppe-arc patches) and again after its last call (before main
// returns, where ppe-arc takes the patches out). ppe_scratch is the region for the trampolines.
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define HOOKED __attribute__((noinline, noipa, section(".text.hooked"), aligned(16384)))
#define STARTUP __attribute__((section(".text.startup")))

static volatile unsigned fib_calls, leaf_calls, twice_calls;
unsigned char ppe_scratch[32768] __attribute__((aligned(16384))); // counters, then code a page apart

HOOKED int fib(int n)
{
    ++fib_calls;
    return n < 2 ? n : (fib(n - 1) + fib(n - 2)) % 1000003;
}

HOOKED int leaf(int x)
{
    ++leaf_calls;
    return x * x % 97;
}

/* lp_start as twice() last read it: a stand-in for PCT_CONTROL, which the trampolines' PCT action
 * writes (e2e/arc_inject_test.cc); a program may read it. */
static volatile unsigned lp_start_in_twice;

HOOKED int twice(int x)
{
    ++twice_calls;
    unsigned lp_start;
    __asm__ volatile("lr %0,[2]" : "=r"(lp_start));
    lp_start_in_twice = lp_start;
    return leaf(x) + leaf(x + 1);
}

STARTUP static void writable(void)
{
    const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    const uintptr_t a = (uintptr_t)fib, b = (uintptr_t)leaf, c = (uintptr_t)twice;
    const uintptr_t low = a < b ? (a < c ? a : c) : (b < c ? b : c), high = a > b ? (a > c ? a : c) : (b > c ? b : c);
    const uintptr_t start = low & ~(page - 1), end = (high + 16384 + page - 1) & ~(page - 1);
    if (mprotect((void*)start, end - start, PROT_READ | PROT_WRITE | PROT_EXEC) != 0
        || mprotect(ppe_scratch, sizeof ppe_scratch, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
        perror("mprotect");
        exit(2);
    }
}

STARTUP __attribute__((constructor)) static void at_start(void) { writable(); }

STARTUP int main(int argc, char** argv)
{
    const int n = argc > 1 ? atoi(argv[1]) : 15;
    const int rounds = argc > 2 ? atoi(argv[2]) : 100;
    int sum = 0;
    for (int i = 0; i < rounds; ++i)
        sum += twice(i);
    const int f = fib(n);
    writable();
    printf("fib(%d) = %d, sum %d\n", n, f, sum);
    printf("calls fib %u twice %u leaf %u\n", fib_calls, twice_calls, leaf_calls);
    printf("lp_start in twice 0x%x\n", lp_start_in_twice);
    return 0;
}
