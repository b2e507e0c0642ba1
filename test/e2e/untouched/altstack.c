/* altstack: an 8 KB alternate signal stack (glibc's classic SIGSTKSZ) set with sigaltstack, then
 * some work and SIGTERM:
 *   handler  a SIGTERM handler with SA_ONSTACK that calls _exit(0): exits 0
 *   default  SIGTERM at its default disposition: killed by SIGTERM
 * The stack is malloc'ed ("malloc", as programs do: no guard page below it) or mmap'ed with an
 * inaccessible page below it ("guarded": running off its end faults at once).
 * Usage: altstack handler|default [malloc|guarded] */
#include "observe.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

enum { kStackBytes = 8192 };
volatile double g_sink;

static void onTerm(int signal)
{
    (void)signal;
    _exit(0);
}

static void* stackMemory(int guarded)
{
    if (!guarded)
        return malloc(kStackBytes);
    const long page = sysconf(_SC_PAGESIZE);
    char* area = mmap(NULL, kStackBytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (area == MAP_FAILED)
        return NULL;
    mprotect(area, page, PROT_NONE);
    return area + page;
}

__attribute__((noinline)) static void work(void)
{
    double s = 0;
    for (long i = 1; i <= 50000000L; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

int main(int argc, char** argv)
{
    const int handled = argc > 1 && !strcmp(argv[1], "handler");
    const int guarded = argc > 2 && !strcmp(argv[2], "guarded");
    stack_t stack = { 0 };
    stack.ss_sp = stackMemory(guarded);
    stack.ss_size = kStackBytes;
    observe("sigaltstack %s", outcome(stack.ss_sp ? sigaltstack(&stack, NULL) : -1, errno));
    if (handled) {
        struct sigaction action = { 0 };
        action.sa_handler = onTerm;
        action.sa_flags = SA_ONSTACK;
        sigemptyset(&action.sa_mask);
        observe("sigaction %s", outcome(sigaction(SIGTERM, &action, NULL), errno));
    }
    work();
    observe("raising SIGTERM");
    raise(SIGTERM);
    observe("survived SIGTERM");
    return 3;
}
