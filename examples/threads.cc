// threads: a multi-threaded C++ program whose four workers do 1, 2, 3 and 4 units of the same
// work, each in its own function, in threads created well after start-up; each worker's CPU time
// (CLOCK_THREAD_CPUTIME_ID) is printed at the end, the truth its samples are judged by.
// Usage: threads [UNITS]   (UNITS = 40 runs for about half a second on one core)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
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

// The calling thread's CPU time so far, in seconds.
double threadSeconds()
{
    timespec t {};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
}

} // namespace

int main(int argc, char** argv)
{
    const uint64_t units = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 40;
    uint64_t results[4] = {};
    double seconds[4] = {};
    std::vector<std::thread> pool;
    pool.emplace_back([&] { results[0] = worker<1>(units), seconds[0] = threadSeconds(); });
    pool.emplace_back([&] { results[1] = worker<2>(units), seconds[1] = threadSeconds(); });
    pool.emplace_back([&] { results[2] = worker<3>(units), seconds[2] = threadSeconds(); });
    pool.emplace_back([&] { results[3] = worker<4>(units), seconds[3] = threadSeconds(); });
    for (std::thread& t : pool)
        t.join();
    std::printf("threads: %llu\n", (unsigned long long)(results[0] ^ results[1] ^ results[2] ^ results[3]));
    // Each worker's own CPU time: the truth its share of the samples is judged by.
    for (int w = 0; w < 4; ++w)
        std::printf("worker<%d>: %.6f s CPU\n", w + 1, seconds[w]);
    return 0;
}
