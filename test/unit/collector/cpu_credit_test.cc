// itimer-prof's weights (threads.h, creditThreadCpu): a sample stands for the whole intervals of
// its own thread's CPU time since that thread's last, the rest kept for the next; a sampling
// period counts from its start; a thread the period has not met counts from its own start.
#include "collector_state.h"
#include "threads.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <ctime>
#include <sys/syscall.h>
#include <thread>
#include <unistd.h>

namespace ppe {

// The collector's state, which the thread table reads (its phase; lifecycle.cc's in libppe).
Collector g_ppe;

namespace {

    constexpr uint64_t kInterval = 500'000; // 2 kHz

    uint64_t threadCpuNs()
    {
        timespec t {};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
        return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_nsec);
    }

    // Runs the calling thread until it has used `ns` more of CPU time.
    void spin(uint64_t ns)
    {
        const uint64_t until = threadCpuNs() + ns;
        volatile uint64_t x = 1;
        while (threadCpuNs() < until)
            for (int i = 0; i < 1000; ++i)
                x = x * 6364136223846793005ull + 1;
    }

    TEST(CpuCredit, ASampleStandsForTheWholeIntervalsSinceTheThreadsLast)
    {
        clearThreads();
        openCpuCredit(0); // this thread credited up to now
        EXPECT_EQ(creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval), 0u) << "no whole interval yet";
        spin(20 * kInterval);
        const uint64_t first = creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval);
        EXPECT_GE(first, 20u);
        EXPECT_LE(first, 21u);
        EXPECT_EQ(creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval), 0u) << "credited once only";
        // The parts of an interval left over add up: 25 samples of 0.6 intervals each give 15.
        uint64_t sum = 0;
        for (int i = 0; i < 25; ++i) {
            spin(kInterval * 6 / 10);
            sum += creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval);
        }
        EXPECT_GE(sum, 15u);
        EXPECT_LE(sum, 16u);
    }

    TEST(CpuCredit, ANewPeriodCountsFromItsStartAndANewThreadFromItsOwn)
    {
        clearThreads();
        spin(10 * kInterval); // before the period: not the profile's
        openCpuCredit(0);
        spin(4 * kInterval);
        const uint64_t mine = creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval);
        EXPECT_GE(mine, 4u);
        EXPECT_LE(mine, 5u);
        // A thread started in the period was not met by openCpuCredit: all its CPU time is in it.
        uint64_t theirs = 0;
        std::thread([&] {
            spin(6 * kInterval);
            theirs = creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval);
        }).join();
        EXPECT_GE(theirs, 6u);
        EXPECT_LE(theirs, 7u);
    }

    TEST(CpuCredit, TheSlotKeepsTheThreadsCpuTimeForItsRecord)
    {
        clearThreads();
        openCpuCredit(0);
        spin(2 * kInterval);
        creditThreadCpu(pid_t(syscall(SYS_gettid)), kInterval);
        const ThreadSlot* slot = threadSlot(pid_t(syscall(SYS_gettid)));
        ASSERT_NE(slot, nullptr);
        EXPECT_GE(slot->cpuNs, 2 * kInterval);
        EXPECT_LE(slot->cpuNs, threadCpuNs());
    }

} // namespace
} // namespace ppe
