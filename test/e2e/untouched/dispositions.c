/* dispositions: what sigaction(sig, NULL, &old) reports for the signals the collector guards or
 * samples with, at each step of a program's life:
 *   default    nothing set: SIG_DFL
 *   own        the program's handler, with flags and a mask that differ from signal to signal
 *              (the old action the installing call returned is printed too)
 *   signal()   signal() over it: it returns the program's handler, and BSD semantics read back
 *   ignored    SIG_IGN; each signal is then raised and the program carries on
 *   restored   SIG_DFL again
 * First, what the program starts with: its blocked signals, its alternate stack, and every signal
 * from 1 to SIGRTMAX that is not at its default.
 * "inherited": SIGHUP, SIGINT, SIGTERM and SIGUSR1 ignored, then the program execs itself (as
 * nohup does) and the new image reports them ignored and survives them.
 * Usage: dispositions [all|inherited] */
#include "observe.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static void onPlain(int signal) { (void)signal; }
static void onInfo(int signal, siginfo_t* info, void* context) { (void)signal, (void)info, (void)context; }

static int g_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGXCPU,
    SIGXFSZ, SIGUSR1, SIGUSR2, SIGALRM, SIGPIPE, SIGTRAP, SIGPROF, SIGCHLD, 0 };
enum { kCount = sizeof g_signals / sizeof g_signals[0] };

static const char* handlerName(const struct sigaction* a)
{
    if (a->sa_flags & SA_SIGINFO)
        return a->sa_sigaction == onInfo ? "onInfo" : "another sa_sigaction";
    if (a->sa_handler == SIG_DFL)
        return "SIG_DFL";
    if (a->sa_handler == SIG_IGN)
        return "SIG_IGN";
    return a->sa_handler == onPlain ? "onPlain" : "another handler";
}

static void show(const char* step, int signal, const char* what, const struct sigaction* a)
{
    char mask[512] = "";
    for (int s = 1; s < NSIG; ++s) {
        if (sigismember(&a->sa_mask, s) == 1)
            snprintf(mask + strlen(mask), sizeof mask - strlen(mask), " %d", s);
    }
    const char* name = sigabbrev_np(signal);
    observe("%-8s %2d %-5s %-4s %-8s flags %#x mask {%s }", step, signal, name ? name : "RT", what, handlerName(a),
        (unsigned)a->sa_flags, mask);
}

static void query(const char* step, int signal)
{
    struct sigaction now;
    memset(&now, 0xa5, sizeof now);
    const int result = sigaction(signal, NULL, &now);
    if (result != 0)
        observe("%s %d: sigaction %s", step, signal, outcome(result, errno));
    show(step, signal, "now", &now);
}

static void installOwn(int i)
{
    const int signal = g_signals[i];
    static const int kFlags[] = { SA_RESTART, SA_SIGINFO | SA_NODEFER, SA_RESTART | SA_RESETHAND | SA_ONSTACK, 0 };
    struct sigaction action = { 0 }, old;
    action.sa_flags = kFlags[i % 4];
    if (action.sa_flags & SA_SIGINFO)
        action.sa_sigaction = onInfo;
    else
        action.sa_handler = onPlain;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, g_signals[(i + 1) % (kCount - 1)]);
    if (i % 2)
        sigaddset(&action.sa_mask, SIGRTMIN + i);
    memset(&old, 0xa5, sizeof old);
    observe("own      %d: sigaction %s", signal, outcome(sigaction(signal, &action, &old), errno));
    show("own", signal, "old", &old);
    query("own", signal);
}

static void ignoreAndRaise(int signal)
{
    struct sigaction action = { 0 }, old;
    action.sa_handler = SIG_IGN;
    sigemptyset(&action.sa_mask);
    sigaction(signal, &action, &old);
    show("ignored", signal, "old", &old);
    query("ignored", signal);
    raise(signal);
    observe("ignored  %d: survived raise", signal);
}

static void bsdSignal(int number)
{
    const sighandler_t previous = signal(number, onPlain);
    observe("signal() %d: returned %s", number,
        previous == onPlain       ? "onPlain"
            : previous == SIG_DFL ? "SIG_DFL"
            : previous == SIG_ERR ? "SIG_ERR"
                                  : "other");
    query("signal()", number);
}

static int inherited(char** argv)
{
    static const int kIgnored[] = { SIGHUP, SIGINT, SIGTERM, SIGUSR1 };
    for (int i = 0; i < 4; ++i)
        signal(kIgnored[i], SIG_IGN);
    execl("/proc/self/exe", argv[0], "after-exec", (char*)NULL);
    observe("exec failed: %s", strerrorname_np(errno));
    return 1;
}

static int afterExec(void)
{
    static const int kIgnored[] = { SIGHUP, SIGINT, SIGTERM, SIGUSR1 };
    for (int i = 0; i < 4; ++i) {
        query("exec'd", kIgnored[i]);
        raise(kIgnored[i]);
        observe("exec'd   %d: survived raise", kIgnored[i]);
    }
    return 0;
}

static void startingState(void)
{
    sigset_t blocked;
    sigprocmask(SIG_BLOCK, NULL, &blocked);
    char list[512] = "";
    for (int s = 1; s <= SIGRTMAX; ++s) {
        if (sigismember(&blocked, s) == 1)
            snprintf(list + strlen(list), sizeof list - strlen(list), " %d", s);
    }
    observe("start: blocked {%s }", list);
    stack_t stack;
    sigaltstack(NULL, &stack);
    observe("start: alternate stack disabled %d", !!(stack.ss_flags & SS_DISABLE));
    for (int s = 1; s <= SIGRTMAX; ++s) {
        struct sigaction now;
        if (sigaction(s, NULL, &now) == 0 && ((now.sa_flags & SA_SIGINFO) || now.sa_handler != SIG_DFL))
            show("start", s, "now", &now);
    }
}

int main(int argc, char** argv)
{
    g_signals[kCount - 1] = SIGRTMAX - 3;
    if (argc > 1 && !strcmp(argv[1], "inherited"))
        return inherited(argv);
    if (argc > 1 && !strcmp(argv[1], "after-exec"))
        return afterExec();
    startingState();
    for (int i = 0; i < kCount; ++i)
        query("default", g_signals[i]);
    for (int i = 0; i < kCount; ++i)
        installOwn(i);
    for (int i = 0; i < kCount; ++i)
        bsdSignal(g_signals[i]);
    for (int i = 0; i < kCount; ++i)
        ignoreAndRaise(g_signals[i]);
    for (int i = 0; i < kCount; ++i) {
        struct sigaction action = { 0 };
        action.sa_handler = SIG_DFL;
        sigaction(g_signals[i], &action, NULL);
        query("restored", g_signals[i]);
    }
    return 0;
}
