/* A shared library that starts a helper thread when loaded, as Open MPI starts its progress
 * threads: it waits in poll() on a pipe all the run, never running the program's code, until
 * helper_stop() writes to the pipe. With helper_thread_main.c, the real-time mode test of issue 34:
 * the program's own waits must lead the blocked time, the helper's put apart. */
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

static int fds[2];

static void* progress(void* unused)
{
    (void)unused;
    struct pollfd p = { fds[0], POLLIN, 0 };
    while (poll(&p, 1, -1) <= 0)
        ;
    return 0;
}

__attribute__((constructor)) static void start_helper(void)
{
    pthread_t thread;
    if (pipe(fds) == 0 && pthread_create(&thread, 0, progress, 0) == 0)
        pthread_detach(thread);
}

void helper_stop(void)
{
    if (write(fds[1], "x", 1) != 1)
        _exit(2);
}
