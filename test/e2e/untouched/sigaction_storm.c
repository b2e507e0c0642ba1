/* sigaction_storm: two threads set SIGUSR1's action over and over, each its own (handler A with
 * SA_RESTART and SIGUSR2 masked, or handler B with SA_SIGINFO and SIGQUIT masked), while the main
 * thread raises SIGUSR2 whose handler reads SIGUSR1's action back: every read must be one of the
 * two whole actions, never a mix; and nothing may hang (a watchdog alarm ends a stuck run).
 * Usage: sigaction_storm */
#include "observe.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

static atomic_int g_stop;
static volatile sig_atomic_t g_reads, g_torn;

static void onA(int signal) { (void)signal; }
static void onB(int signal, siginfo_t* info, void* context) { (void)signal, (void)info, (void)context; }

static int isA(const struct sigaction* a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == onA && (a->sa_flags & SA_RESTART)
        && sigismember(&a->sa_mask, SIGUSR2) == 1 && sigismember(&a->sa_mask, SIGQUIT) == 0;
}

static int isB(const struct sigaction* a)
{
    return (a->sa_flags & SA_SIGINFO) && a->sa_sigaction == onB && !(a->sa_flags & SA_RESTART)
        && sigismember(&a->sa_mask, SIGQUIT) == 1 && sigismember(&a->sa_mask, SIGUSR2) == 0;
}

static void onRead(int signal)
{
    (void)signal;
    struct sigaction now;
    sigaction(SIGUSR1, NULL, &now);
    ++g_reads;
    g_torn += !isA(&now) && !isB(&now);
}

static void set(int which)
{
    struct sigaction action = { 0 };
    sigemptyset(&action.sa_mask);
    if (which) {
        action.sa_handler = onA;
        action.sa_flags = SA_RESTART;
        sigaddset(&action.sa_mask, SIGUSR2);
    } else {
        action.sa_sigaction = onB;
        action.sa_flags = SA_SIGINFO;
        sigaddset(&action.sa_mask, SIGQUIT);
    }
    sigaction(SIGUSR1, &action, NULL);
}

static void* setter(void* which)
{
    while (!atomic_load(&g_stop))
        set(which != NULL);
    return NULL;
}

int main(void)
{
    alarm(20); /* a watchdog: SIGALRM ends a run that hangs */
    signal(SIGUSR2, onRead);
    set(1);
    pthread_t threads[2];
    pthread_create(&threads[0], NULL, setter, (void*)1);
    pthread_create(&threads[1], NULL, setter, NULL);
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        raise(SIGUSR2);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < 500000000L);
    atomic_store(&g_stop, 1);
    pthread_join(threads[0], NULL);
    pthread_join(threads[1], NULL);
    observe("read SIGUSR1's action often enough: %d", g_reads > 1000);
    observe("torn reads: %d", (int)g_torn);
    return 0;
}
