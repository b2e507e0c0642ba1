// Time in a shared library with DWARF (liblazy_object.so): the main thread computes in one of its
// units while another thread sleeps in a system call made in the other (lazy_object_test.cc).
#include <pthread.h>
#include <stdio.h>

double lazy_hot(long n);
void lazy_wait(int times, int ms);

static void* waiter(void* unused)
{
    (void)unused;
    lazy_wait(6, 100);
    return 0;
}

int main(void)
{
    pthread_t thread;
    if (pthread_create(&thread, 0, waiter, 0) != 0)
        return 1;
    double s = 0;
    for (int i = 0; i < 8; ++i)
        s += lazy_hot(40000000);
    pthread_join(thread, 0);
    printf("%f\n", s);
    return 0;
}
