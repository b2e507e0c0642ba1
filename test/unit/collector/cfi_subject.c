/* cfi_subject: call chains of the frame shapes -O2 code has, built as users build (-O2
 * -fomit-frame-pointer): frames the stack pointer alone describes, a frame whose CFA is the frame
 * pointer (a variable-length array), recursion, and a call back from the C library (qsort's
 * comparator). The leaf takes its own pc, sp and fp and hands them to cfi_hook, which unwinds from
 * there while the frames are still live. */
#include <stdint.h>
#include <stdlib.h>

void (*cfi_hook)(uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr);

__attribute__((noinline)) int shape_leaf(int n)
{
    volatile int pad[8];
    pad[0] = n;
    uint64_t pc = 0, sp = 0, fp = 0, lr = 0;
#if defined(__x86_64__)
    __asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1\n\tmov %%rbp, %2" : "=r"(pc), "=r"(sp), "=r"(fp));
#elif defined(__aarch64__)
    __asm__ volatile("adr %0, .\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30" : "=r"(pc), "=r"(sp), "=r"(fp), "=r"(lr));
#endif
    cfi_hook(pc, sp, fp, lr);
    return pad[0];
}

__attribute__((noinline)) int shape_vla(int n)
{
    volatile char buffer[n + 16];
    buffer[0] = 1;
    const int r = shape_leaf(n);
    return r + buffer[0];
}

__attribute__((noinline)) int shape_recursive(int n)
{
    volatile int keep = n;
    const int r = n == 0 ? shape_vla(n + 3) : shape_recursive(n - 1);
    return r + keep; /* read after the call: no tail call, no loop */
}

static int g_depth;
static int g_called;

int cfi_compare(const void* a, const void* b)
{
    if (!g_called++)
        shape_recursive(g_depth);
    return *(const int*)a - *(const int*)b;
}

__attribute__((noinline)) int cfi_subject_run(int depth)
{
    int values[2] = { 2, 1 };
    g_depth = depth;
    g_called = 0;
    qsort(values, 2, sizeof(int), cfi_compare);
    return values[0];
}
