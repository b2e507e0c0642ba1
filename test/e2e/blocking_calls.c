// Blocking calls under the collector (test/e2e/real_time_test.cc): each must wait its full time
// and return what it would without the collector (no EINTR), while another thread computes and is
// sampled. Prints one line per call: NAME RESULT ERRNO-NAME MILLISECONDS.
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int g_stop;
static const long kWaitMs = 200;

static double nowMs(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static void report(const char* name, long rc, int error, double started)
{
    printf("%s %ld %s %.0f\n", name, rc, error ? strerrorname_np(error) : "0", nowMs() - started);
    fflush(stdout);
}

static void* spin(void* arg)
{
    (void)arg;
    volatile unsigned long x = 0;
    while (!g_stop)
        x = x * 3 + 1;
    return NULL;
}

__attribute__((noinline)) void wait_in_sleep(void)
{
    double t = nowMs();
    unsigned left = sleep(1);
    report("sleep", (long)left, 0, t);
}

__attribute__((noinline)) void wait_in_usleep(void)
{
    double t = nowMs();
    int rc = usleep(kWaitMs * 1000);
    report("usleep", rc, rc ? errno : 0, t);
}

__attribute__((noinline)) void wait_in_nanosleep(void)
{
    struct timespec d = { 0, kWaitMs * 1000000 }, left;
    double t = nowMs();
    int rc = nanosleep(&d, &left);
    report("nanosleep", rc, rc ? errno : 0, t);
}

__attribute__((noinline)) void wait_in_poll(void)
{
    double t = nowMs();
    int rc = poll(NULL, 0, kWaitMs);
    report("poll", rc, rc < 0 ? errno : 0, t);
}

__attribute__((noinline)) void wait_in_select(void)
{
    struct timeval d = { 0, kWaitMs * 1000 };
    double t = nowMs();
    int rc = select(0, NULL, NULL, NULL, &d);
    report("select", rc, rc < 0 ? errno : 0, t);
}

__attribute__((noinline)) void wait_in_epoll(void)
{
    int ep = epoll_create1(0);
    struct epoll_event e;
    double t = nowMs();
    int rc = epoll_wait(ep, &e, 1, kWaitMs);
    report("epoll_wait", rc, rc < 0 ? errno : 0, t);
    close(ep);
}

__attribute__((noinline)) void wait_in_sem_timedwait(void)
{
    sem_t s;
    sem_init(&s, 0, 0);
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += kWaitMs * 1000000;
    until.tv_sec += until.tv_nsec / 1000000000;
    until.tv_nsec %= 1000000000;
    double t = nowMs();
    int rc = sem_timedwait(&s, &until);
    report("sem_timedwait", rc, rc ? errno : 0, t);
}

__attribute__((noinline)) void wait_in_child_usleep(void)
{
    double t = nowMs();
    pid_t child = fork();
    if (child == 0) {
        int rc = usleep(kWaitMs * 1000);
        _exit(rc == 0 && nowMs() - t >= kWaitMs ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    report("child_usleep", WIFEXITED(status) ? WEXITSTATUS(status) : -1, 0, t);
}

int main(void)
{
    pthread_t worker;
    pthread_create(&worker, NULL, spin, NULL);
    wait_in_sleep();
    wait_in_usleep();
    wait_in_nanosleep();
    wait_in_poll();
    wait_in_select();
    wait_in_epoll();
    wait_in_sem_timedwait();
    wait_in_child_usleep();
    g_stop = 1;
    pthread_join(worker, NULL);
    return 0;
}
