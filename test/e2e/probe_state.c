/* probe_state: prints what the collector has set up in this process, so a test can check that
 * without PPE_ON the linked collector left no trace: signal handlers, POSIX timers, interval
 * timers and perf-event descriptors. */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static int handled(int sig)
{
    struct sigaction sa;
    sigaction(sig, NULL, &sa);
    return (sa.sa_flags & SA_SIGINFO) ? sa.sa_sigaction != NULL
                                      : (sa.sa_handler != SIG_DFL && sa.sa_handler != SIG_IGN);
}

static int countLines(const char* path, const char* prefix)
{
    FILE* f = fopen(path, "r");
    char line[512];
    int n = 0;
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        n += strncmp(line, prefix, strlen(prefix)) == 0;
    fclose(f);
    return n;
}

static int perfDescriptors(void)
{
    DIR* d = opendir("/proc/self/fd");
    struct dirent* e;
    int n = 0;
    while (d && (e = readdir(d))) {
        char path[300], target[300];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len > 0) {
            target[len] = 0;
            n += strstr(target, "perf_event") != NULL;
        }
    }
    if (d)
        closedir(d);
    return n;
}

int main(void)
{
    struct itimerval prof;
    getitimer(ITIMER_PROF, &prof);
    printf("sigprof-handler %d\n", handled(SIGPROF));
    printf("sigtrap-handler %d\n", handled(SIGTRAP));
    printf("posix-timers %d\n", countLines("/proc/self/timers", "ID:"));
    printf("itimer-prof %d\n", prof.it_interval.tv_sec || prof.it_interval.tv_usec);
    printf("perf-fds %d\n", perfDescriptors());
    return 0;
}
