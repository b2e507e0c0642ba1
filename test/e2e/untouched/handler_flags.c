/* handler_flags: a handler installed in main with one of sigaction's options, and what it makes
 * observable (SIGUSR1 and SIGUSR2 are signals the collector guards to write its profile):
 *   mask       sa_mask holds SIGUSR2: raised inside the SIGUSR1 handler it waits for its end
 *   nodefer    SA_NODEFER: the SIGUSR1 handler raises SIGUSR1 again and is re-entered at once
 *   defer      without SA_NODEFER: the second SIGUSR1 runs only after the first handler returns
 *   resethand  SA_RESETHAND: the first SIGUSR1 runs the handler, which reads back SIG_DFL; the
 *              second kills the program with SIGUSR1
 *   siginfo    SA_SIGINFO: the handler gets the signal's number, code, sender and value
 *   resethand-siginfo  SA_SIGINFO | SA_RESETHAND: the value of a sigqueue'd SIGUSR1 arrives, the
 *              action is SIG_DFL inside, and the second SIGUSR1 kills
 *   term-mask  a SIGTERM handler whose sa_mask holds SIGINT (both end a program by default)
 *   abort-returns  a SIGABRT handler that returns, then abort(): glibc's abort puts SIGABRT back
 *              to its default itself (past sigaction) and raises it again, which kills
 * Usage: handler_flags HOW */
#include "observe.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

static volatile sig_atomic_t g_depth, g_maxDepth, g_entries, g_secondRan, g_secondDuring;
static volatile sig_atomic_t g_secondBlocked, g_selfBlocked, g_resetSeen, g_infoKept;
static volatile int g_code, g_fromSelf, g_value, g_signo;
static int g_first = SIGUSR1, g_second = SIGUSR2;

static void onSecond(int signal)
{
    (void)signal;
    g_secondRan = 1;
}

static void onFirst(int signal)
{
    ++g_entries;
    if (++g_depth > g_maxDepth)
        g_maxDepth = g_depth;
    sigset_t now;
    sigprocmask(SIG_BLOCK, NULL, &now);
    g_secondBlocked = sigismember(&now, g_second);
    g_selfBlocked = sigismember(&now, signal);
    if (g_entries == 1) {
        raise(g_second);
        g_secondDuring = g_secondRan;
    }
    --g_depth;
}

static void onRepeat(int signal)
{
    ++g_entries;
    if (++g_depth > g_maxDepth)
        g_maxDepth = g_depth;
    if (g_entries == 1)
        raise(signal);
    --g_depth;
}

static void onReset(int signal)
{
    struct sigaction now;
    sigaction(signal, NULL, &now);
    g_resetSeen = now.sa_handler == SIG_DFL;
    g_infoKept = !!(now.sa_flags & SA_SIGINFO);
    ++g_entries;
}

static void onInfo(int signal, siginfo_t* info, void* context)
{
    g_signo = info->si_signo == signal;
    g_code = info->si_code;
    g_fromSelf = info->si_pid == getpid() && context != NULL;
    g_value = info->si_value.sival_int;
}

static void onInfoOnce(int signal, siginfo_t* info, void* context)
{
    onInfo(signal, info, context);
    onReset(signal);
}

static void onAbort(int signal)
{
    (void)signal;
    const char text[] = "the SIGABRT handler ran and returns\n";
    (void)!write(1, text, sizeof text - 1);
}

static void install(int signal, void (*handler)(int), int flags, int masked)
{
    struct sigaction action = { 0 };
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    if (masked)
        sigaddset(&action.sa_mask, masked);
    observe("sigaction(%d) %s", signal, outcome(sigaction(signal, &action, NULL), errno));
}

static void masked(int first, int second)
{
    g_first = first;
    g_second = second;
    install(second, onSecond, SA_RESTART, 0);
    install(first, onFirst, SA_RESTART, second);
    raise(first);
    observe("in the handler: second signal blocked %d, own signal blocked %d, second ran inside %d",
        (int)g_secondBlocked, (int)g_selfBlocked, (int)g_secondDuring);
    observe("after the handler: second ran %d, entries %d", (int)g_secondRan, (int)g_entries);
}

static void repeated(int flags)
{
    install(SIGUSR1, onRepeat, flags, 0);
    raise(SIGUSR1);
    observe("entries %d, deepest nesting %d", (int)g_entries, (int)g_maxDepth);
}

static void resetOnce(void)
{
    install(SIGUSR1, onReset, SA_RESETHAND, 0);
    raise(SIGUSR1);
    observe("handler ran %d time(s), read back SIG_DFL inside: %d", (int)g_entries, (int)g_resetSeen);
    struct sigaction now;
    sigaction(SIGUSR1, NULL, &now);
    observe("after: %s", now.sa_handler == SIG_DFL ? "SIG_DFL" : "still handled");
    raise(SIGUSR1);
    observe("survived the second SIGUSR1 (handler ran %d time(s))", (int)g_entries);
}

static void withInfo(void)
{
    struct sigaction action = { 0 };
    action.sa_sigaction = onInfo;
    action.sa_flags = SA_SIGINFO;
    sigemptyset(&action.sa_mask);
    observe("sigaction %s", outcome(sigaction(SIGUSR1, &action, NULL), errno));
    raise(SIGUSR1);
    observe("raise: signo matches %d, code %d, from this process %d", g_signo, g_code, g_fromSelf);
    sigqueue(getpid(), SIGUSR1, (union sigval) { .sival_int = 4242 });
    observe(
        "sigqueue: signo matches %d, code %d, from this process %d, value %d", g_signo, g_code, g_fromSelf, g_value);
}

static void withInfoOnce(void)
{
    struct sigaction action = { 0 };
    action.sa_sigaction = onInfoOnce;
    action.sa_flags = SA_SIGINFO | SA_RESETHAND;
    sigemptyset(&action.sa_mask);
    observe("sigaction %s", outcome(sigaction(SIGUSR1, &action, NULL), errno));
    sigqueue(getpid(), SIGUSR1, (union sigval) { .sival_int = 4343 });
    observe("sigqueue: code %d, from this process %d, value %d, SIG_DFL inside %d (SA_SIGINFO kept %d)", g_code,
        g_fromSelf, g_value, (int)g_resetSeen, (int)g_infoKept);
    raise(SIGUSR1);
    observe("survived the second SIGUSR1");
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "mask";
    if (!strcmp(how, "mask"))
        masked(SIGUSR1, SIGUSR2);
    else if (!strcmp(how, "term-mask"))
        masked(SIGTERM, SIGINT);
    else if (!strcmp(how, "nodefer"))
        repeated(SA_NODEFER);
    else if (!strcmp(how, "defer"))
        repeated(0);
    else if (!strcmp(how, "resethand"))
        resetOnce();
    else if (!strcmp(how, "siginfo"))
        withInfo();
    else if (!strcmp(how, "resethand-siginfo"))
        withInfoOnce();
    else if (!strcmp(how, "abort-returns")) {
        install(SIGABRT, onAbort, SA_RESTART, 0);
        abort();
    } else
        return 2;
    return 0;
}
