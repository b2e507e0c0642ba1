// inlining: a C++ program whose work is done by templates from kernels.h inlined into run().
// Usage: inlining [ROUNDS]   (ROUNDS = 1000 runs for about a second)
#include "kernels.h"

#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

__attribute__((noinline)) double run(int rounds)
{
    std::vector<double> a(1 << 20), b(4099);
    for (std::size_t i = 0; i < a.size(); ++i)
        a[i] = double(i % 17) / 17.0;
    for (std::size_t i = 0; i < b.size(); ++i)
        b[i] = double(i % 5) / 5.0;
    double total = 0;
    for (int r = 0; r < rounds; ++r) {
        total += kernels::dot(a, b, 1 + r % 3);
        if (r % 4 == 0)
            kernels::scale(b, 0.5);
    }
    return total;
}

} // namespace

int main(int argc, char** argv)
{
    const int rounds = argc > 1 ? std::atoi(argv[1]) : 1000;
    std::printf("inlining: %.6g\n", run(rounds));
    return 0;
}
