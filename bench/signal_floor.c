/* signal_floor: a preload library that takes the same signals as the collector at the same rate
 * with an empty handler. Its cost is the floor any signal-based sampler pays in this kernel and
 * VM; bench/overhead.sh reports the collector's cost against it.
 * FLOOR_KIND=posix (CLOCK_MONOTONIC timer, SIGRTMAX-3) or perf (task-clock sigtrap, SIGTRAP);
 * FLOOR_RATE=Hz. */
#define _GNU_SOURCE
#include <linux/perf_event.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void empty(int sig, siginfo_t* info, void* context) { (void)sig, (void)info, (void)context; }

__attribute__((constructor)) static void arm(void)
{
    const char* kind = getenv("FLOOR_KIND");
    const char* rate = getenv("FLOOR_RATE");
    if (!kind || !rate)
        return;
    long ns = 1000000000L / atol(rate);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = empty;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    if (strcmp(kind, "perf") == 0) {
        sigaction(SIGTRAP, &sa, NULL);
        struct perf_event_attr attr;
        memset(&attr, 0, sizeof attr);
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_TASK_CLOCK;
        attr.sample_period = (unsigned long long)ns;
        attr.inherit = 1;
        attr.inherit_thread = 1;
        attr.remove_on_exec = 1;
        attr.sigtrap = 1;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
        return;
    }
    sigaction(SIGRTMAX - 3, &sa, NULL); /* the collector's real-time timer signal */
    struct sigevent ev;
    memset(&ev, 0, sizeof ev);
    ev.sigev_notify = SIGEV_SIGNAL;
    ev.sigev_signo = SIGRTMAX - 3;
    timer_t timer;
    timer_create(CLOCK_MONOTONIC, &ev, &timer);
    struct itimerspec spec = { { ns / 1000000000L, ns % 1000000000L }, { ns / 1000000000L, ns % 1000000000L } };
    timer_settime(timer, 0, &spec, NULL);
}
