/* libcall_paths_lib.so: a call through a shared library for call_paths.c; the call back is its time. */
__attribute__((noinline)) double call_paths_apply(double (*fn)(long), long n)
{
    volatile double r = fn(n);
    return r + 0.5;
}
