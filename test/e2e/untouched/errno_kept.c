/* errno_kept: errno after a successful pthread_create and fork is the program's to see (neither
 * call promises to leave it alone, but whatever glibc leaves there must be the same with and
 * without the collector). Under perf-ring a creation right after a period change puts the asked
 * period back first, by asking the collector thread and waiting on a futex where only that thread
 * holds the ring descriptors (collector/src/ring_periods.h): a futex wait that times out (1 ms
 * slices) or finds the answer already there sets errno (EAGAIN, ETIMEDOUT), and glibc's fork
 * keeps errno only when it fails, so its prepare handler must keep it itself. Four rounds of
 * 120 ms of CPU time (past the 50-100 ms between changes), each followed by a creation and a fork
 * with errno set beforehand. Usage: errno_kept */
#include "observe.h"

#include <pthread.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile double sink;

static void* idle(void* arg) { return arg; }

static void compute(double seconds)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    const double end = (double)t.tv_sec + (double)t.tv_nsec * 1e-9 + seconds;
    do {
        for (int i = 0; i < 100000; ++i)
            sink += 1.0;
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    } while ((double)t.tv_sec + (double)t.tv_nsec * 1e-9 < end);
}

int main(void)
{
    for (int round = 0; round < 4; ++round) {
        compute(0.12);
        pthread_t thread;
        errno = EDOM;
        const int created = pthread_create(&thread, NULL, idle, NULL);
        const int afterCreate = errno;
        if (created == 0)
            pthread_join(thread, NULL);
        compute(0.12);
        errno = ERANGE;
        const pid_t child = fork();
        if (child == 0)
            _exit(0);
        const int afterFork = errno;
        if (child > 0)
            waitpid(child, NULL, 0);
        observe("round %d: pthread_create %s errno %s; fork %s errno %s", round, created == 0 ? "ok" : "failed",
            strerrorname_np(afterCreate), child > 0 ? "ok" : "failed", strerrorname_np(afterFork));
    }
    return 0;
}
