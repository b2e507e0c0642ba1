// C++ for the debuginfo tests: a class template and an inline function from a header inlined
// into their caller, a function with a .cold part, a namespace, an anonymous namespace.
#include "helpers.h"

#include <cstdio>
#include <cstdlib>

namespace numbers {

__attribute__((noinline, noclone)) long sumSquares(int n)
{
    Accumulator<long> acc;
    for (int i = 0; i < n; ++i)
        acc.add(mixBits(i));
    return acc.total;
}

__attribute__((cold, noinline)) void fail(const char* what, long value)
{
    std::fprintf(stderr, "cxx: %s %ld\n", what, value);
    std::exit(2);
}

// A loop with a rare error path: gcc -O2 moves that path to checkedSum's .cold part.
__attribute__((noinline, noclone)) long checkedSum(const long* v, int n)
{
    long sum = 0;
    for (int i = 0; i < n; ++i) {
        if (__builtin_expect(v[i] < 0, 0))
            fail("negative value", v[i]);
        sum += v[i];
    }
    return sum;
}

} // namespace numbers

namespace {

__attribute__((noinline, noclone)) int twice(int x) { return 2 * x + std::rand() % 2; }

} // namespace

int main(int argc, char**)
{
    long s = numbers::sumSquares(1000 * argc);
    long v[16];
    for (int i = 0; i < 16; ++i)
        v[i] = s + i;
    std::printf("%ld %ld %d\n", s, numbers::checkedSum(v, 16), twice(argc));
    return 0;
}
