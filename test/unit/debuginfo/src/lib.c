/* A shared library for the debuginfo tests. */
__attribute__((noinline, noclone)) double scale(double x, int n)
{
    for (int i = 0; i < n; ++i)
        x = x * 1.0001 + 0.5;
    return x;
}

static __attribute__((noinline, noclone)) double helper(double x) { return x * x; }

double api_entry(double x) { return helper(scale(x, 10)); }
