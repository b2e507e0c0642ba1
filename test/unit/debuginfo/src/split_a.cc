// One of two compile units for the lazy-reading tests (lazy_read_test.cc): functions with code of
// their own, and an inline helper inlined into them.
#include <cstdint>

namespace split {
template <int K> inline uint64_t mix(uint64_t x) { return (x ^ (x >> K)) * 0x9e3779b97f4a7c15ull; }
} // namespace split

__attribute__((noinline)) uint64_t splitA1(uint64_t x)
{
    for (int i = 0; i < 40; ++i)
        x = split::mix<13>(x + uint64_t(i));
    return x;
}

__attribute__((noinline)) uint64_t splitA2(uint64_t x)
{
    for (int i = 0; i < 30; ++i)
        x = split::mix<7>(x) + 3;
    return x;
}
