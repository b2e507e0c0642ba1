// The other compile unit of liblazy_object.so (lazy_object_test.cc): code that takes no samples,
// only waits, making the system call itself so that the blocked thread's place (the site) is in
// this library, not in the C library. ppeout must still name it, though it reads the library's
// DWARF only where the report names code.
#include <time.h>

#if !defined(__x86_64__) && !defined(__aarch64__)
#include <unistd.h>
#endif

static void sleepHere(const struct timespec* t)
{
#if defined(__x86_64__)
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "0"(35L), "D"(t), "S"(0L) : "rcx", "r11", "memory"); // nanosleep
    (void)ret;
#elif defined(__aarch64__)
    register long x8 __asm__("x8") = 101; // nanosleep
    register const struct timespec* x0 __asm__("x0") = t;
    register long x1 __asm__("x1") = 0;
    __asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
#else
    nanosleep(t, 0); // the site is then the C library's: the test says so and skips
#endif
}

__attribute__((noinline)) void lazy_wait(int times, int ms)
{
    const struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    for (int i = 0; i < times; ++i)
        sleepHere(&t); // lazy_wait's call
}
