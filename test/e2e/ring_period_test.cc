// Issue 35: perf-ring's period varies above the asked one and the samples are thinned back to it
// (period_dither.h), so that no program loop stays in phase with the samples and every phase is
// sampled at the asked rate, and every thread is created at the asked period. Each test
// runs with room for the ring descriptors above the soft descriptor limit (`prlimit
// --nofile=1024:`, as most systems set it: the descriptors are placed high in the program's table),
// and without (a soft limit equal to the hard one, as many batch systems and containers set it:
// they live in the collector thread's own table alone, and a creating thread asks it to put the
// asked period back, ring_periods.h).
#include "elf_symbols.h"
#include "profile_hits.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <sys/resource.h>
#include <unistd.h>

namespace ppe::testing {
namespace {

    class RingPeriodTest : public ::testing::TestWithParam<std::string> {
    protected:
        TempDir m_dir;

        void SetUp() override
        {
            if (!perfEventsAvailable() || !perfRingsAvailable())
                GTEST_SKIP() << "perf events bound to a CPU, or their ring buffers, are refused here: perf-ring "
                                "cannot run";
            rlimit limit {};
            ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &limit), 0);
            const rlim_t needed = (GetParam() == "room" ? 1024 : 4096) + 2 * rlim_t(sysconf(_SC_NPROCESSORS_CONF));
            if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < needed)
                GTEST_SKIP() << "the hard descriptor limit (" << limit.rlim_max << ") is below " << needed;
        }

        // The launcher's command under the descriptor limits of the parameter.
        std::vector<std::string> command(const std::vector<std::string>& args)
        {
            std::vector<std::string> argv { "/usr/bin/prlimit",
                GetParam() == "room" ? "--nofile=1024:" : "--nofile=4096:4096", "--", PPE_LAUNCHER, "-o",
                m_dir.file("out.ppe"), "--timer", "ring" };
            argv.insert(argv.end(), args.begin(), args.end());
            return argv;
        }

        // The hits of two functions of `program` in the run's profile.
        std::pair<double, double> hitsOf(const char* program, const char* first, const char* second)
        {
            const auto symbols = functionSymbols(program);
            auto p = readProfile(m_dir.file("out.ppe"));
            EXPECT_TRUE(p) << p.error().str();
            if (!p)
                return {};
            EXPECT_EQ(p->mechanism, "perf-ring");
            return { double(hitsIn(*p, findFunction(symbols, first))),
                double(hitsIn(*p, findFunction(symbols, second))) };
        }
    };

    // A loop whose period is one sampling interval (bench's `aliasing`, 70:30 in truth) read 58:42
    // to 76:24 from run to run under a fixed period, each time with an error of about one point:
    // the samples kept one phase of the loop. Five runs out of five within three errors of 70:30
    // (three of five failed with the fixed period; without room, 0.634, 0.716, 0.835 and 0.723 in
    // four runs before the collector thread's own table held the descriptors).
    TEST_P(RingPeriodTest, ALoopOfOneSamplingIntervalReadsItsTrueSplit)
    {
        for (int run = 0; run < 5; ++run) {
            const RunResult r = runProgram(command({ "--mode", "cpu", PPE_ALIASING, "2", "500" }), {}, m_dir.path());
            ASSERT_TRUE(r.exited && r.status == 0) << r.err;
            const auto [a, b] = hitsOf(PPE_ALIASING, "alias_a", "alias_b");
            ASSERT_GT(a + b, 1000) << r.err;
            const double share = a / (a + b);
            const double error = std::sqrt(share * (1 - share) / (a + b));
            EXPECT_NEAR(share, 0.7, 3 * error) << "run " << run << ": " << a << " against " << b << r.err;
        }
    }

    // A phase of 0.12 s of CPU time spans one to three of the varied rate's stretches (50-100 ms).
    // When the rates went either side of the asked one, balanced over the run, such a phase was
    // sampled at its stretches' rate, up to 50 % off: `ktest`'s bsort read 11.9-19.0 % in fourteen
    // runs where a fixed period read 13.7-15.9 %. Thinned back to the asked rate, each phase's share
    // of the samples is its share of the CPU time within its error: over six runs the squared
    // deviations in errors sum below 22.5 (a chance of 1 in 1000 for chi-square with 6 degrees).
    // The balanced rates failed it without room (four runs: 25, with phase_a's share 3.2 errors
    // low in one).
    TEST_P(RingPeriodTest, AShortPhaseIsSampledAtTheAskedRate)
    {
        double squares = 0;
        std::string runs;
        for (int run = 0; run < 6; ++run) {
            const RunResult r
                = runProgram(command({ "--mode", "cpu", PPE_SHORT_PHASE, "0.12", "0.9" }), {}, m_dir.path());
            ASSERT_TRUE(r.exited && r.status == 0) << r.err;
            double aSeconds = 0;
            double bSeconds = 0;
            ASSERT_EQ(std::sscanf(r.out.c_str(), "phase_a %lf phase_b %lf", &aSeconds, &bSeconds), 2) << r.out;
            const auto [a, b] = hitsOf(PPE_SHORT_PHASE, "phase_a", "phase_b");
            ASSERT_GT(a + b, 1500) << r.err;
            const double truth = aSeconds / (aSeconds + bSeconds);
            const double z = (a / (a + b) - truth) / std::sqrt(truth * (1 - truth) / (a + b));
            squares += z * z;
            runs += " " + std::to_string(a / (a + b)) + " (truth " + std::to_string(truth) + ")";
        }
        EXPECT_LT(squares, 22.5) << "phase_a's shares:" << runs;
    }

    // A thread keeps for its life the period its creator's events had when it was made. With the
    // varied periods and no guard on thread creation the worker of `worker_rate` (created while the
    // main thread computes, both computing as much side by side) read 0.555, 0.549, 0.461 and 0.468
    // of main's share where its CPU time said 0.50 (errors of 0.009); without room and without the
    // request to the collector thread, 0.412 to 0.474 in four runs. libppe.so's pthread_create puts
    // the asked periods back around each creation and separates the new thread's events from its
    // creator's (separatePerfContext).
    TEST_P(RingPeriodTest, AThreadCreatedWhileThePeriodVariesSamplesAtTheAskedRate)
    {
        for (int run = 0; run < 3; ++run) {
            const RunResult r = runProgram(command({ "--mode", "cpu", PPE_WORKER_RATE, "1" }), {}, m_dir.path());
            ASSERT_TRUE(r.exited && r.status == 0) << r.err;
            double mainSeconds = 0;
            double workerSeconds = 0;
            ASSERT_EQ(std::sscanf(r.out.c_str(), "main_work %lf worker_work %lf", &mainSeconds, &workerSeconds), 2)
                << r.out;
            const auto [a, b] = hitsOf(PPE_WORKER_RATE, "main_work", "worker_work");
            ASSERT_GT(a + b, 1500) << r.err;
            const double truth = mainSeconds / (mainSeconds + workerSeconds);
            const double share = a / (a + b);
            EXPECT_NEAR(share, truth, 3 * std::sqrt(truth * (1 - truth) / (a + b)))
                << "run " << run << ": " << a << " against " << b;
        }
    }

    // Work periodic in wall time (`timer_loop`: a burst of 0.4 ms of CPU every millisecond, 70:30 in
    // two functions, each function's CPU time measured by the program) under real-time mode, the
    // default. With the asked period fixed the wake-up's jitter already kept the samples from one
    // phase (0.696-0.709 in eight runs); the varied periods must not lock either. A stretch whose
    // period matches the burst's length samples a few places of the burst for that stretch, so one
    // run's answer spreads more than its binomial error says: in 72 runs of 2 s the squared
    // deviations in errors averaged 2.4 (1 if binomial), the worst 5.6 errors, and an official CI
    // run failed at 4.1 when each run was held to 4 errors (docs/user-guide.md says the spread).
    // So the six runs are held together: their pooled share within 6 pooled errors of their pooled
    // CPU time (12 sets of six: -3.0 to +1.5 errors). A lock, the samples held to a few places of
    // the burst (75:25 or 50:50), is 10 pooled errors off or more.
    TEST_P(RingPeriodTest, WorkPeriodicInWallTimeReadsItsTrueSplitUnderRealTime)
    {
        double hitsA = 0;
        double hits = 0;
        double secondsA = 0;
        double seconds = 0;
        std::string runs;
        for (int run = 0; run < 6; ++run) {
            const RunResult r = runProgram(command({ PPE_TIMER_LOOP, "2" }), {}, m_dir.path());
            ASSERT_TRUE(r.exited && r.status == 0) << r.err;
            double aSeconds = 0;
            double bSeconds = 0;
            ASSERT_EQ(std::sscanf(r.out.c_str(), "timer_a %lf timer_b %lf", &aSeconds, &bSeconds), 2) << r.out;
            auto p = readProfile(m_dir.file("out.ppe"));
            ASSERT_TRUE(p) << p.error().str();
            ASSERT_TRUE(p->scan) << "real-time mode scans blocked threads";
            const auto [a, b] = hitsOf(PPE_TIMER_LOOP, "timer_a", "timer_b");
            ASSERT_GT(a + b, 800) << r.err;
            hitsA += a;
            hits += a + b;
            secondsA += aSeconds;
            seconds += aSeconds + bSeconds;
            runs += " " + std::to_string(a / (a + b)) + " (truth " + std::to_string(aSeconds / (aSeconds + bSeconds))
                + ")";
        }
        const double truth = secondsA / seconds;
        EXPECT_NEAR(hitsA / hits, truth, 6 * std::sqrt(truth * (1 - truth) / hits)) << "timer_a's shares:" << runs;
    }

    INSTANTIATE_TEST_SUITE_P(Descriptors, RingPeriodTest, ::testing::Values("room", "no_room"));

} // namespace
} // namespace ppe::testing
