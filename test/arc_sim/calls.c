/* calls.c: the ARC program whose function symbols the simulated ARC target (test/arc_sim) runs.
 * A known call tree: main calls left three times and right once, both call shared (a function
 * with two callers), right calls leaf directly too, fact recurses, trap_like stands for time the
 * core spends in kernel mode. calls.tree gives the weights the simulated machine uses; this
 * program, built with Debian's arc-linux-gnu-gcc-12, gives the addresses and sizes. */
volatile int sink;

__attribute__((noinline)) void leaf(int n)
{
    for (int i = 0; i < n; ++i)
        sink += i;
}

__attribute__((noinline)) void shared(int n)
{
    leaf(n);
    for (int i = 0; i < n; ++i)
        sink ^= i;
}

__attribute__((noinline)) void left(void) { shared(10); }

__attribute__((noinline)) void right(void)
{
    shared(20);
    leaf(5);
}

__attribute__((noinline)) int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

__attribute__((noinline)) void trap_like(void)
{
    for (int i = 0; i < 4; ++i)
        sink -= i;
}

int main(void)
{
    for (int i = 0; i < 3; ++i)
        left();
    right();
    sink += fact(5);
    trap_like();
    return 0;
}
