// threads: a multi-threaded C++ program whose four workers do 1, 2, 3 and 4 units of the same
// work, each in its own function, in threads created well after start-up.
// Usage: threads [UNITS]   (UNITS = 40 runs for about a second on one core)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

namespace {

// The same loop in each worker; `volatile` keeps the optimiser from folding it.
template <int Share>
__attribute__((noinline)) uint64_t worker(uint64_t units)
{
    volatile uint64_t x = Share;
    for (uint64_t i = 0; i < units * Share * 1'000'000; ++i)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    return x;
}

} // namespace

int main(int argc, char** argv)
{
    const uint64_t units = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 40;
    uint64_t results[4] = {};
    std::vector<std::thread> pool;
    pool.emplace_back([&] { results[0] = worker<1>(units); });
    pool.emplace_back([&] { results[1] = worker<2>(units); });
    pool.emplace_back([&] { results[2] = worker<3>(units); });
    pool.emplace_back([&] { results[3] = worker<4>(units); });
    for (std::thread& t : pool)
        t.join();
    std::printf("threads: %llu\n", (unsigned long long)(results[0] ^ results[1] ^ results[2] ^ results[3]));
    return 0;
}
