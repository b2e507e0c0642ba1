/* signals_untouched: what a program sees of its signals and namespaces, one case per run
 * (signals_untouched_test.cc runs each bare and under the collector and compares):
 *   restart          a SIGALRM handler with SA_RESTART; a read on a pipe outlives the alarm
 *   ignored-hup      SIGHUP ignored; a child sends it during a 300 ms nanosleep, which sleeps on
 *   mask             a SIGUSR1 handler with SIGUSR2 in its sa_mask raises SIGUSR2: it waits
 *   nodefer          a SA_NODEFER SIGUSR1 handler raises SIGUSR1 again: it is re-entered at once
 *   resethand        a SA_RESETHAND SIGUSR1 handler reads back SIG_DFL; the second SIGUSR1 kills
 *   query            sigaction(SIGTERM, NULL, &old) after each change: handler, raw flags, mask
 *   snapshot-chain   the same with SIGUSR2, under PPE_SNAPSHOT_SIGNAL=USR2 (a signal the collector
 *                    owns): sa_mask and SA_RESETHAND honoured by the chained handler
 *   altstack-exit    an 8 KB alternate stack (a guard page below it) and a SA_ONSTACK SIGTERM
 *                    handler that calls _exit(0)
 *   altstack-default the same stack, SIGTERM at its default: the program dies of it
 *   altstack-work    a SA_ONSTACK SIGUSR1 handler that computes 0.1 s of CPU on an alternate stack of
 *                    one kernel frame (AT_MINSIGSTKSZ) and 3 KB: room for the handler, not for a
 *                    sample's frame nested in it; then says how many signals its mask reads back
 *   crash-handler    the same stack and a crash handler as many programs have one: SA_RESETHAND,
 *                    it says so and returns; the fault happens again and kills at the default
 *   unshare          unshare(CLONE_NEWUSER); says on stderr how many ppe-collector threads run after
 *   vfork-unshare    the same in a vfork child (a sandbox's way), which shares the parent's memory
 *                    but not its threads; the parent's collector thread runs on
 * Usage: signals_untouched CASE */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double g_sink;
static volatile sig_atomic_t g_depth, g_maxDepth, g_entries, g_secondRan, g_secondDuring, g_otherBlocked;
static volatile sig_atomic_t g_resetSeen;
static int g_pipe[2];

__attribute__((noinline)) static void work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

static const char* outcome(long result, int error)
{
    static char text[64];
    if (result >= 0)
        snprintf(text, sizeof text, "%ld", result);
    else
        snprintf(text, sizeof text, "-1 %s", strerrorname_np(error));
    return text;
}

static void say(const char* format, const char* value)
{
    printf(format, value);
    putchar('\n');
    fflush(stdout);
}

static void install(int sig, void (*handler)(int), int flags, int masked)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = handler;
    action.sa_flags = flags;
    sigemptyset(&action.sa_mask);
    if (masked)
        sigaddset(&action.sa_mask, masked);
    sigaction(sig, &action, NULL);
}

static void onAlarm(int sig)
{
    (void)sig;
    (void)!write(g_pipe[1], "x", 1);
}

static int restartRead(void)
{
    if (pipe(g_pipe) != 0)
        return 1;
    install(SIGALRM, onAlarm, SA_RESTART, 0);
    struct itimerval once = { { 0, 0 }, { 0, 200000 } };
    setitimer(ITIMER_REAL, &once, NULL);
    char byte;
    const long n = read(g_pipe[0], &byte, 1);
    say("read returned %s", outcome(n, errno));
    return 0;
}

static char stateOf(pid_t pid)
{
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    const int fd = open(path, O_RDONLY);
    const long n = fd < 0 ? -1 : read(fd, text, sizeof text - 1);
    if (fd >= 0)
        close(fd);
    if (n <= 0)
        return 0;
    text[n] = 0;
    const char* close = strrchr(text, ')');
    return close && close[1] ? close[2] : 0;
}

/* The child sends SIGHUP once the parent sleeps (its state S), polling for at most 5 s. */
static int ignoredHup(void)
{
    signal(SIGHUP, SIG_IGN);
    const pid_t parent = getpid();
    const pid_t child = fork();
    if (child == 0) {
        for (int i = 0; i < 50000 && stateOf(parent) != 'S'; ++i)
            usleep(100);
        kill(parent, SIGHUP);
        _exit(0);
    }
    struct timespec nap = { 0, 300000000 };
    const int result = nanosleep(&nap, NULL);
    say("nanosleep returned %s", outcome(result, errno));
    waitpid(child, NULL, 0);
    return 0;
}

static void onSecond(int sig)
{
    (void)sig;
    g_secondRan = 1;
}

static void onFirst(int sig)
{
    (void)sig;
    ++g_entries;
    if (++g_depth > g_maxDepth)
        g_maxDepth = g_depth;
    if (g_entries == 1) {
        raise(SIGUSR2);
        g_secondDuring = g_secondRan;
    }
    --g_depth;
}

static void onReset(int sig)
{
    struct sigaction now;
    sigaction(sig, NULL, &now);
    g_resetSeen = now.sa_handler == SIG_DFL;
    sigset_t mask;
    sigprocmask(SIG_BLOCK, NULL, &mask);
    g_otherBlocked = sigismember(&mask, SIGUSR1);
    ++g_entries;
}

static int handlerFlags(const char* how)
{
    install(SIGUSR2, onSecond, 0, 0);
    if (!strcmp(how, "mask")) {
        install(SIGUSR1, onFirst, 0, SIGUSR2);
        raise(SIGUSR1);
        say("SIGUSR2 ran inside the SIGUSR1 handler: %s", g_secondDuring ? "yes" : "no");
        say("SIGUSR2 ran after it: %s", g_secondRan ? "yes" : "no");
        return 0;
    }
    install(SIGUSR1, onReset, SA_RESETHAND, 0);
    raise(SIGUSR1);
    say("the handler read back SIG_DFL: %s", g_resetSeen ? "yes" : "no");
    fflush(stdout);
    raise(SIGUSR1);
    say("%s", "still alive after the second SIGUSR1");
    return 0;
}

static void onRepeat(int sig)
{
    ++g_entries;
    if (++g_depth > g_maxDepth)
        g_maxDepth = g_depth;
    if (g_entries == 1)
        raise(sig);
    --g_depth;
}

static int nodefer(void)
{
    install(SIGUSR1, onRepeat, SA_NODEFER, 0);
    raise(SIGUSR1);
    char depth[16];
    snprintf(depth, sizeof depth, "%d", (int)g_maxDepth);
    say("SA_NODEFER handler depth: %s", depth);
    return 0;
}

static void describe(int sig, const char* when)
{
    struct sigaction now;
    memset(&now, 0, sizeof now);
    sigaction(sig, NULL, &now);
    const char* handler = now.sa_handler == SIG_DFL ? "SIG_DFL" : now.sa_handler == SIG_IGN ? "SIG_IGN" : "own";
    printf("%s: %s flags 0x%x SIGINT masked %d SIGKILL masked %d\n", when, handler, (unsigned)now.sa_flags,
        sigismember(&now.sa_mask, SIGINT), sigismember(&now.sa_mask, SIGKILL));
    fflush(stdout);
}

static void onSiginfo(int sig, siginfo_t* info, void* context)
{
    (void)sig;
    (void)info;
    (void)context;
}

static int query(int sig)
{
    describe(sig, "at start");
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = onSiginfo;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaddset(&action.sa_mask, SIGINT);
    sigaddset(&action.sa_mask, SIGKILL);
    sigaction(sig, &action, NULL);
    describe(sig, "handler");
    action.sa_handler = SIG_DFL;
    action.sa_flags = SA_RESTART;
    sigaction(sig, &action, NULL);
    describe(sig, "default again");
    signal(sig, SIG_IGN);
    describe(sig, "ignored");
    return 0;
}

static int snapshotChain(void)
{
    install(SIGUSR2, onReset, SA_RESETHAND, SIGUSR1);
    raise(SIGUSR2);
    say("the handler ran: %s", g_entries == 1 ? "yes" : "no");
    say("SIGUSR1 blocked in it: %s", g_otherBlocked ? "yes" : "no");
    say("the handler read back SIG_DFL: %s", g_resetSeen ? "yes" : "no");
    describe(SIGUSR2, "after");
    return 0;
}

static void onTermExit(int sig)
{
    (void)sig;
    _exit(0);
}

/* 8 KB (glibc's classic SIGSTKSZ) with an inaccessible page below: an overflow faults at once. */
static void altStackOf(size_t size)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char* memory = mmap(NULL, page + size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    mprotect(memory, page, PROT_NONE);
    stack_t stack = { .ss_sp = memory + page, .ss_size = size, .ss_flags = 0 };
    sigaltstack(&stack, NULL);
}

static void smallAltStack(void) { altStackOf(8192); }

static double cpuSeconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void onUsr1Work(int sig)
{
    (void)sig;
    const double start = cpuSeconds();
    while (cpuSeconds() - start < 0.1)
        g_sink += 1;
}

static int altstackWork(void)
{
    altStackOf(getauxval(AT_MINSIGSTKSZ) + 3072);
    install(SIGUSR1, onUsr1Work, SA_ONSTACK, 0);
    raise(SIGUSR1);
    struct sigaction now;
    sigaction(SIGUSR1, NULL, &now);
    int masked = 0;
    for (int sig = 1; sig < 65; ++sig)
        masked += sigismember(&now.sa_mask, sig) == 1;
    printf("the handler ran; its mask reads back %d signals\n", masked);
    return 0;
}

static void onCrash(int sig)
{
    (void)sig;
    static const char said[] = "the crash handler ran\n";
    (void)!write(1, said, sizeof said - 1);
}

static int crashHandler(void)
{
    smallAltStack();
    install(SIGSEGV, onCrash, SA_RESETHAND | SA_ONSTACK, 0);
    work(100000000L);
    *(volatile int*)16 = 1;
    say("%s", "the fault did not end the program");
    return 3;
}

static int altstack(int ownHandler)
{
    smallAltStack();
    if (ownHandler)
        install(SIGTERM, onTermExit, SA_ONSTACK, 0);
    work(100000000L);
    raise(SIGTERM);
    say("%s", "SIGTERM did not end the program");
    return 3;
}

static int collectorThreads(void)
{
    DIR* tasks = opendir("/proc/self/task");
    int count = 0;
    for (struct dirent* entry; tasks && (entry = readdir(tasks));) {
        char path[300], name[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", entry->d_name);
        FILE* comm = fopen(path, "r");
        if (comm && fgets(name, sizeof name, comm) && !strcmp(name, "ppe-collector\n"))
            ++count;
        if (comm)
            fclose(comm);
    }
    if (tasks)
        closedir(tasks);
    return count;
}

static int unshareUser(void)
{
    const int result = unshare(CLONE_NEWUSER);
    say("unshare(CLONE_NEWUSER) returned %s", outcome(result, errno));
    fprintf(stderr, "collector threads after unshare: %d\n", collectorThreads());
    work(50000000L);
    return 0;
}

static int vforkUnshare(void)
{
    const pid_t child = vfork();
    if (child == 0)
        _exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
    int status = 0;
    waitpid(child, &status, 0);
    say("the vfork child's unshare(CLONE_NEWUSER): %s",
        WEXITSTATUS(status) ? strerrorname_np(WEXITSTATUS(status)) : "0");
    fprintf(stderr, "collector threads after unshare: %d\n", collectorThreads());
    work(50000000L);
    return 0;
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "";
    if (!strcmp(how, "restart"))
        return restartRead();
    if (!strcmp(how, "ignored-hup"))
        return ignoredHup();
    if (!strcmp(how, "mask") || !strcmp(how, "resethand"))
        return handlerFlags(how);
    if (!strcmp(how, "nodefer"))
        return nodefer();
    if (!strcmp(how, "query"))
        return query(SIGTERM);
    if (!strcmp(how, "snapshot-chain"))
        return snapshotChain();
    if (!strcmp(how, "altstack-exit") || !strcmp(how, "altstack-default"))
        return altstack(!strcmp(how, "altstack-exit"));
    if (!strcmp(how, "altstack-work"))
        return altstackWork();
    if (!strcmp(how, "crash-handler"))
        return crashHandler();
    if (!strcmp(how, "unshare"))
        return unshareUser();
    if (!strcmp(how, "vfork-unshare"))
        return vforkUnshare();
    fprintf(stderr, "signals_untouched: unknown case %s\n", how);
    return 2;
}
