// The other compile unit for the lazy-reading tests (lazy_read_test.cc), with main.
#include <cstdint>
#include <cstdio>

uint64_t splitA1(uint64_t x);
uint64_t splitA2(uint64_t x);

namespace {
inline uint64_t twist(uint64_t x) { return (x << 7) ^ (x >> 3); }
} // namespace

__attribute__((noinline)) uint64_t splitB1(uint64_t x)
{
    for (int i = 0; i < 50; ++i)
        x = twist(x) + uint64_t(i);
    return x;
}

int main(int argc, char**)
{
    uint64_t x = uint64_t(argc);
    for (int i = 0; i < 1000; ++i)
        x = splitB1(splitA2(splitA1(x)));
    std::printf("%llu\n", static_cast<unsigned long long>(x));
    return 0;
}
