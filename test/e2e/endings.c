/* endings: does some work in work(), then ends the way argv[1] says:
 *   return exit _exit _Exit abort segv fpe ill term int hup xcpu usr1 usr2 pipe quit alrm
 *   exec (execl /bin/true)  execvp (execvp "true")  kill (SIGKILL itself)
 *   own-term (a SIGTERM handler of its own that _exits 42)  ignored-hup (SIGHUP ignored: carries on)
 *   masked-sleep (every signal blocked, then sleeps 4 s and returns)
 *   pthread-exit (main ends with pthread_exit after a thread that works as long again: glibc's last thread exits 0)
 * Usage: endings HOW [SCALE] */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

volatile double g_sink;
volatile int g_zero = 0;
volatile int g_seven = 7;

__attribute__((noinline)) void work(long n)
{
    double s = 0;
    for (long i = 1; i <= n; ++i)
        s += 1.0 / (double)i;
    g_sink = s;
}

static void* workAgain(void* scale)
{
    work((long)scale * 100000000L);
    return NULL;
}

static int maskedSleep(void)
{
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    struct timespec left = { 4, 0 };
    while (nanosleep(&left, &left) != 0)
        ;
    return 0;
}

static void endWithPthreadExit(long scale)
{
    pthread_t thread;
    pthread_create(&thread, NULL, workAgain, (void*)scale);
    pthread_exit(NULL);
}

static void ownTerm(int sig)
{
    (void)sig;
    _exit(42);
}

int main(int argc, char** argv)
{
    const char* how = argc > 1 ? argv[1] : "return";
    work((argc > 2 ? atol(argv[2]) : 1) * 100000000L);
    fflush(stdout);
    if (!strcmp(how, "exit"))
        exit(3);
    if (!strcmp(how, "_exit"))
        _exit(4);
    if (!strcmp(how, "_Exit"))
        _Exit(5);
    if (!strcmp(how, "abort"))
        abort();
    if (!strcmp(how, "segv"))
        *(volatile int*)16 = 1;
    if (!strcmp(how, "fpe"))
        g_sink = g_seven / g_zero; /* idiv traps */
    if (!strcmp(how, "ill"))
        __builtin_trap();
    if (!strcmp(how, "exec"))
        execl("/bin/true", "true", (char*)NULL);
    if (!strcmp(how, "execvp")) {
        char* args[] = { "true", NULL };
        execvp("true", args);
    }
    if (!strcmp(how, "masked-sleep"))
        return maskedSleep();
    if (!strcmp(how, "pthread-exit"))
        endWithPthreadExit(argc > 2 ? atol(argv[2]) : 1);
    if (!strcmp(how, "own-term")) {
        signal(SIGTERM, ownTerm);
        raise(SIGTERM);
    }
    if (!strcmp(how, "ignored-hup")) {
        signal(SIGHUP, SIG_IGN);
        raise(SIGHUP);
        return 6;
    }
    static const struct {
        const char* name;
        int sig;
    } kSignals[]
        = { { "term", SIGTERM }, { "int", SIGINT }, { "hup", SIGHUP }, { "xcpu", SIGXCPU }, { "usr1", SIGUSR1 },
              { "usr2", SIGUSR2 }, { "pipe", SIGPIPE }, { "quit", SIGQUIT }, { "alrm", SIGALRM }, { "kill", SIGKILL } };
    for (unsigned i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
        if (!strcmp(how, kSignals[i].name))
            kill(getpid(), kSignals[i].sig);
    }
    return 0;
}
