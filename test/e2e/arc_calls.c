// A program whose functions count their own calls (ppe-arc calls, issue 37): a recursive fib, a
// function called from a loop and a leaf called twice from it. It prints the counts, so a test knows
// the truth from the program itself, and its result, so a test sees that breakpoints changed nothing.
// Usage: calls N ROUNDS [THREADS]: fib(N) and ROUNDS calls of twice, in main or, built with
// -DCALLS_THREADS, in each of THREADS threads at once (calls are counted per thread: a thread's
// returns are its own). Without it the program calls no pthread function (ppe-arc refuses to count
// one that can start threads under QEMU's user-mode stub).
#ifdef CALLS_THREADS
#include <pthread.h>
#endif
#include <stdio.h>
#include <stdlib.h>

static unsigned fib_calls, leaf_calls, twice_calls, sum;
static int n = 15, rounds = 100;

#define COUNT(counter) __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED)

__attribute__((noinline, noipa)) int fib(int n)
{
    COUNT(fib_calls);
    return n < 2 ? n : (fib(n - 1) + fib(n - 2)) % 1000003;
}

__attribute__((noinline, noipa)) int leaf(int x)
{
    COUNT(leaf_calls);
    return x * x % 97;
}

__attribute__((noinline, noipa)) int twice(int x)
{
    COUNT(twice_calls);
    return leaf(x) + leaf(x + 1);
}

static void* work(void* unused)
{
    (void)unused;
    unsigned mine = 0;
    for (int i = 0; i < rounds; ++i)
        mine += (unsigned)twice(i);
    mine += (unsigned)fib(n);
    __atomic_fetch_add(&sum, mine, __ATOMIC_RELAXED);
    return 0;
}

int main(int argc, char** argv)
{
    n = argc > 1 ? atoi(argv[1]) : 15;
    rounds = argc > 2 ? atoi(argv[2]) : 100;
    const int threads = argc > 3 ? atoi(argv[3]) : 0;
#ifdef CALLS_THREADS
    pthread_t ids[64];
    for (int t = 0; t < threads && t < 64; ++t)
        if (pthread_create(&ids[t], 0, work, 0) != 0)
            return 2;
    for (int t = 0; t < threads && t < 64; ++t)
        pthread_join(ids[t], 0);
#else
    if (threads != 0)
        return 2; /* built without threads */
#endif
    if (threads == 0)
        work(0);
    printf("fib(%d), sum %u\n", n, sum);
    printf("calls fib %u twice %u leaf %u\n", fib_calls, twice_calls, leaf_calls);
    return 0;
}
