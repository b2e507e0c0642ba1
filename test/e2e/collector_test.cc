// End-to-end tests of the collector: real programs, linked and preloaded, under the real libppe.
#include "elf_symbols.h"
#include "profile_hits.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <regex>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;
    const std::string kPrime = "1000000000000000003"; // simp runs ~1 s: sd's loop tries every odd divisor

    std::string example(const std::string& name) { return kExamples + "/" + name; }

    int countLines(const std::string& text, const std::string& prefix)
    {
        int n = 0;
        size_t at = 0;
        while ((at = text.find(prefix, at)) != std::string::npos) {
            n += at == 0 || text[at - 1] == '\n';
            at += prefix.size();
        }
        return n;
    }

    struct Profiled {
        RunResult run;
        Profile profile;
    };

    class CollectorTest : public ::testing::Test {
    protected:
        TempDir m_dir;

        // Runs argv with PPE_ON and PPE_OUT in the temp dir; fails the test unless a profile results.
        Profiled profile(
            std::vector<std::string> argv, std::vector<EnvChange> env = {}, const std::string& name = "out.ppe")
        {
            env.push_back({ "PPE_ON", "1" });
            env.push_back({ "PPE_OUT", m_dir.file(name) });
            Profiled p { runProgram(argv, env, m_dir.path()), {} };
            EXPECT_TRUE(p.run.exited && p.run.status == 0)
                << argv[0] << " status " << p.run.status << " signal " << p.run.signal << "\n"
                << p.run.err;
            auto read = readProfile(m_dir.file(name));
            if (!read) {
                ADD_FAILURE() << read.error().str() << "\n" << p.run.err;
                return p;
            }
            p.profile = std::move(read.value());
            return p;
        }

        // Samples arrive at a rate, not on a schedule: scale the work up until at least `minimum`
        // samples taken landed in range (never a fixed sleep).
        Profiled profileUntil(uint64_t minimum, const std::function<std::vector<std::string>(int)>& argvFor,
            const std::vector<EnvChange>& env = {})
        {
            Profiled p;
            for (int scale = 1; scale <= 64; scale *= 2) {
                p = profile(argvFor(scale), env);
                if (::testing::Test::HasFailure() || double(p.profile.inRange()) / p.profile.sampleWeight() >= minimum)
                    return p;
            }
            ADD_FAILURE() << "fewer than " << minimum << " samples even at 64x the work";
            return p;
        }
    };

    // ---- where the samples land ----

    struct SimpCase {
        const char* name;
        const char* program;
        bool preload; // through the `ppe` launcher
        const char* mode;
    };

    void PrintTo(const SimpCase& c, std::ostream* os) { *os << c.name; }

    class SimpTest : public CollectorTest, public ::testing::WithParamInterface<SimpCase> { };

    TEST_P(SimpTest, SdHoldsMostHits)
    {
        const SimpCase& c = GetParam();
        std::vector<std::string> argv = { example(c.program), kPrime };
        if (c.preload)
            argv.insert(argv.begin(), { PPE_LAUNCHER, "--mode", c.mode });
        std::vector<EnvChange> env;
        if (!c.preload)
            env.push_back({ "PPE_MODE", std::string(c.mode) == "cpu" ? "1" : "0" });
        const Profiled p = profile(argv, env);
        // About a second of work: 2000 samples, or ~250 where perf events are refused (the tick).
        ASSERT_GE(p.profile.inRange(), p.profile.mechanism == "itimer-prof" ? 100u : 200u) << p.run.err;
        const auto symbols = functionSymbols(example(c.program));
        const FunctionSymbol sd = findFunction(symbols, "sd");
        EXPECT_GT(double(hitsIn(p.profile, sd)), 0.9 * double(p.profile.inRange()));
        EXPECT_EQ(p.profile.image, std::filesystem::canonical(example(c.program)).string());
        EXPECT_EQ(p.profile.buildId, buildIdOf(example(c.program)));
        EXPECT_EQ(p.profile.mode == SampleMode::Cpu, std::string(c.mode) == "cpu");
        EXPECT_EQ(p.profile.command.at(1), kPrime);
        // Real time: running code is sampled by CPU time and blocked threads by the collector
        // thread's scan, which says so in the profile. (Only itimer-prof counts ticks then: its
        // samples taken.)
        if (p.profile.mode == SampleMode::Real) {
            EXPECT_NE(p.profile.mechanism, "posix-timer");
            EXPECT_TRUE(p.profile.scan.has_value());
            if (p.profile.mechanism != "itimer-prof") {
                EXPECT_EQ(p.profile.ticks, 0u);
            }
        }
        // The whole executable's code is monitored: sd and main inside the range.
        EXPECT_LE(p.profile.rangeStart, sd.address);
        EXPECT_GE(p.profile.rangeEnd, sd.address + sd.size);
        // Messages: one at the start, one at the end, on stderr; and where perf events are
        // refused, the tick-bound fallback's missing samples.
        EXPECT_EQ(countLines(p.run.err, "ppe: monitored address range is 0x"), 1) << p.run.err;
        EXPECT_EQ(countLines(p.run.err, "ppe: output file is " + m_dir.file("out.ppe")), 1) << p.run.err;
        const int missing = p.profile.mechanism == "itimer-prof" ? countLines(p.run.err, "ppe: only ") : 0;
        EXPECT_EQ(countLines(p.run.err, "ppe: ") - missing, 2) << p.run.err;
    }

    INSTANTIATE_TEST_SUITE_P(LinkModes, SimpTest,
        ::testing::Values(SimpCase { "linked_shared_real", "simp", false, "real" },
            SimpCase { "linked_shared_cpu", "simp", false, "cpu" },
            SimpCase { "linked_static", "simp_static", false, "cpu" },
            SimpCase { "fully_static", "simp_fullstatic", false, "real" },
            SimpCase { "non_pie", "simp_nopie", false, "cpu" },
            SimpCase { "preloaded_real", "simp_plain", true, "real" },
            SimpCase { "preloaded_cpu", "simp_plain", true, "cpu" }),
        [](const auto& info) { return std::string(info.param.name); });

    TEST_F(CollectorTest, TickBoundFallbackStillProfiles)
    {
        const Profiled p
            = profile({ PPE_LAUNCHER, "--mode", "cpu", "--timer", "itimer", example("simp_plain"), kPrime });
        EXPECT_EQ(p.profile.mechanism, "itimer-prof");
        ASSERT_GT(p.profile.inRange(), 20u);
        const FunctionSymbol sd = findFunction(functionSymbols(example("simp_plain")), "sd");
        EXPECT_GT(double(hitsIn(p.profile, sd)), 0.9 * double(p.profile.inRange()));
        EXPECT_LE(p.profile.achievedRate, p.profile.requestedRate * 1.1);
    }

    // itimer-prof fires once a tick for all the threads that ran in it, so each sample stands for
    // its own thread's CPU time since its last: every worker's count is the asked rate of the CPU
    // time the worker measured itself (CLOCK_THREAD_CPUTIME_ID), within 3 % and its last tick's
    // part; and the ticks, the samples taken, are what the statistical errors are of.
    TEST_F(CollectorTest, TickBoundFallbackWeighsEachThreadByItsOwnCpuTime)
    {
        const Profiled p = profile({ PPE_LAUNCHER, "--mode", "cpu", "--timer", "itimer", example("threads"), "160" });
        ASSERT_EQ(p.profile.mechanism, "itimer-prof");
        ASSERT_GT(p.profile.ticks, 0u) << "no samples counted as taken";
        EXPECT_LT(p.profile.ticks, p.profile.total) << "the tick is slower than the asked 2 kHz";
        EXPECT_GE(p.profile.sampleWeight(), double(p.profile.total) / double(p.profile.ticks))
            << "the squares of unequal weights sum to more than those of equal ones";
        const auto symbols = functionSymbols(example("threads"));
        for (int share = 1; share <= 4; ++share) {
            const std::string worker = "worker<" + std::to_string(share) + ">";
            const size_t at = p.run.out.find(worker + ": ");
            ASSERT_NE(at, std::string::npos) << p.run.out;
            const double cpu = std::stod(p.run.out.substr(at + worker.size() + 2));
            const FunctionSymbol f
                = findFunction(symbols, "_ZN12_GLOBAL__N_16workerILi" + std::to_string(share) + "EEEmm");
            const double expected = cpu * p.profile.requestedRate;
            EXPECT_NEAR(double(hitsIn(p.profile, f)), expected, 0.03 * expected + 4 * p.profile.sampleWeight())
                << worker << " used " << cpu << " s of CPU";
        }
    }

    TEST_F(CollectorTest, PreloadedWithLdPreloadDirectly)
    {
        const Profiled p = profile({ example("simp_plain"), kPrime }, { { "LD_PRELOAD", PPE_LIBRARY } });
        const FunctionSymbol sd = findFunction(functionSymbols(example("simp_plain")), "sd");
        EXPECT_GT(double(hitsIn(p.profile, sd)), 0.9 * double(p.profile.inRange()));
    }

    TEST_F(CollectorTest, TwoCopiesOfTheCollectorOnlyOneRuns)
    {
        // libppe.a linked in and libppe.so preloaded: the executable's copy wins.
        const Profiled p = profile({ example("simp_static"), kPrime }, { { "LD_PRELOAD", PPE_LIBRARY } });
        EXPECT_EQ(countLines(p.run.err, "ppe: monitored address range"), 1) << p.run.err;
        EXPECT_GT(p.profile.inRange(), 0u);
    }

    // Each worker does Share units of the same loop: in CPU time its share of the samples is
    // Share/10, within three binomial standard errors of the samples taken. (itimer-prof's process
    // timer fires once a tick for all the threads that ran in it: unweighted, a thread that shared
    // the CPUs took 13 % of the samples for 20 % of the CPU time, threads.h.)
    TEST_F(CollectorTest, EveryThreadIsSampledInCpuMode)
    {
        const Profiled p = profileUntil(2000, [](int scale) {
            return std::vector<std::string> { PPE_LAUNCHER, "--mode", "cpu", example("threads"),
                std::to_string(20 * scale) };
        });
        const auto symbols = functionSymbols(example("threads"));
        const double n = double(p.profile.inRange());
        double workers = 0;
        for (int share = 1; share <= 4; ++share) {
            const FunctionSymbol f
                = findFunction(symbols, "_ZN12_GLOBAL__N_16workerILi" + std::to_string(share) + "EEEmm");
            const double hits = double(hitsIn(p.profile, f));
            const double expected = share / 10.0;
            const double se = std::sqrt(expected * (1 - expected) * p.profile.sampleWeight() / n);
            EXPECT_NEAR(hits / n, expected, 3 * se + 0.01) << "worker<" << share << ">: " << hits << " of " << n;
            workers += hits;
        }
        EXPECT_GT(workers, 0.95 * n);
    }

    TEST_F(CollectorTest, CpuModeDeliversTheRequestedRate)
    {
        const Profiled p = profile({ PPE_LAUNCHER, "--mode", "cpu", "-F", "2000", example("threads"), "20" });
        if (!takesAskedRate(p.profile))
            GTEST_SKIP() << "perf events unavailable here (mechanism " << p.profile.mechanism
                         << "): CPU timers are tick-bound";
        EXPECT_DOUBLE_EQ(p.profile.requestedRate, 2000.0);
        EXPECT_GT(p.profile.achievedRate, 0.7 * 2000.0);
        EXPECT_LT(p.profile.achievedRate, 1.1 * 2000.0);
    }

    // Real time: running threads are sampled by their CPU time, the main thread waiting in join()
    // by the collector thread's scan (no signal reaches it); each thread has its own record.
    TEST_F(CollectorTest, EveryThreadIsSampledInRealMode)
    {
        const Profiled p = profileUntil(2000, [](int scale) {
            return std::vector<std::string> { PPE_LAUNCHER, "--mode", "real", example("threads"),
                std::to_string(20 * scale) };
        });
        ASSERT_TRUE(p.profile.scan.has_value()) << p.profile.mechanism;
        const auto symbols = functionSymbols(example("threads"));
        std::vector<double> shares;
        for (int share = 1; share <= 4; ++share) {
            const std::string name = "_ZN12_GLOBAL__N_16workerILi" + std::to_string(share) + "EEEmm";
            shares.push_back(double(hitsIn(p.profile, findFunction(symbols, name))) / double(p.profile.inRange()));
            EXPECT_GT(shares.back(), 0.03) << "worker<" << share << ">";
        }
        EXPECT_GT(shares[3], shares[0]);
        // The workers' samples are theirs: four threads with samples, and the main thread blocked.
        size_t sampled = 0;
        double mainBlocked = 0;
        for (const ThreadSamples& t : p.profile.threads) {
            sampled += t.samples > 100;
            if (t.tid == p.profile.pid)
                mainBlocked = t.blockedSeconds;
        }
        EXPECT_GE(sampled, 4u);
        EXPECT_GT(mainBlocked, 0.0);
        // Where it waited: a call from main into the C++ library's join, found on its stack.
        const FunctionSymbol mainFunction = findFunction(symbols, "main");
        double inMain = 0;
        for (const BlockedPlace& b : p.profile.blocked) {
            if (b.caller.kind == CodeLocation::Kind::Image && b.caller.address > mainFunction.address
                && b.caller.address <= mainFunction.address + mainFunction.size)
                inMain += b.seconds;
        }
        EXPECT_GT(inMain, 0.5 * mainBlocked);
        if (takesAskedRate(p.profile)) {
            EXPECT_NEAR(p.profile.achievedRate, p.profile.requestedRate, 0.2 * p.profile.requestedRate);
        }
    }

    TEST_F(CollectorTest, SharedLibrarySamplesAreCountedByObject)
    {
        const Profiled p = profileUntil(300, [](int scale) {
            // CPU time: the 2:1 split of the work holds however loaded the machine is.
            return std::vector<std::string> { PPE_LAUNCHER, "--mode", "cpu", example("shlib"),
                std::to_string(300 * scale) };
        });
        const SharedObject* kernel = nullptr;
        for (const SharedObject& o : p.profile.objects) {
            if (o.path.ends_with("/libkernel.so"))
                kernel = &o;
        }
        ASSERT_NE(kernel, nullptr) << "libkernel.so not among the objects";
        // kernel_sum does twice local_sum's work.
        EXPECT_GT(double(kernel->hits), 1.4 * double(p.profile.inRange()));
        EXPECT_LT(double(kernel->hits), 3.0 * double(p.profile.inRange()));
        EXPECT_EQ(kernel->buildId, buildIdOf(example("libkernel.so")));
        uint64_t sum = 0;
        for (const ObjectSamples& h : kernel->hitsByOffset)
            sum += h.count;
        EXPECT_EQ(sum, kernel->hits);
        EXPECT_GE(p.profile.counts[kShared], kernel->hits);
        const FunctionSymbol local = findFunction(functionSymbols(example("shlib")), "local_sum");
        EXPECT_GT(double(hitsIn(p.profile, local)), 0.9 * double(p.profile.inRange()));
    }

    TEST_F(CollectorTest, FortranControlCallsPauseAndStart)
    {
        const Profiled p = profileUntil(300,
            [](int scale) {
                return std::vector<std::string> { example("fortran_api"), std::to_string(scale) };
            },
            { { "PPE_MODE", "1" } });
        const auto symbols = functionSymbols(example("fortran_api"));
        const double n = double(p.profile.inRange());
        EXPECT_GT(double(hitsIn(p.profile, findFunction(symbols, "counted_work_"))), 0.9 * n);
        EXPECT_LE(double(hitsIn(p.profile, findFunction(symbols, "ignored_work_"))), 0.01 * n);
        // Only the second half of the run was sampled.
        EXPECT_LT(p.profile.activeTime, 0.8 * (p.profile.cpuUser + p.profile.cpuSystem));
    }

    TEST_F(CollectorTest, CControlCallsSetRangeAndInterval)
    {
        const Profiled p = profileUntil(300, [](int scale) {
            return std::vector<std::string> { PPE_CONTROL_API, std::to_string(scale) };
        });
        EXPECT_NE(p.run.out.find("control_api 0 "), std::string::npos) << p.run.out;
        const FunctionSymbol hotB = findFunction(functionSymbols(PPE_CONTROL_API), "hot_b");
        EXPECT_EQ(p.profile.rangeStart, hotB.address);
        EXPECT_EQ(p.profile.rangeEnd, hotB.address + 64);
        EXPECT_EQ(p.profile.interval, 1000u);
        EXPECT_EQ(p.profile.mode, SampleMode::Cpu);
        // hot_a (outside the range) and hot_b (inside) do the same work.
        const double outside = double(p.profile.counts[kBelow] + p.profile.counts[kAbove]);
        const double inside = double(p.profile.inRange());
        EXPECT_NEAR(inside / (inside + outside), 0.5, 0.15);
    }

    TEST_F(CollectorTest, FortranProgramProfilesItsSubroutines)
    {
        const Profiled p = profileUntil(500,
            [](int scale) {
                return std::vector<std::string> { example("ktest"), std::to_string(scale) };
            },
            { { "PPE_MODE", "1" } });
        const auto symbols = functionSymbols(example("ktest"));
        const double gram = double(hitsIn(p.profile, findFunction(symbols, "gram_")));
        const double mxm = double(hitsIn(p.profile, findFunction(symbols, "mxm_")));
        const double bsort = double(hitsIn(p.profile, findFunction(symbols, "bsort_")));
        EXPECT_GT(gram + mxm + bsort, 0.9 * double(p.profile.inRange()));
        EXPECT_GT(gram, 0.0);
        EXPECT_GT(mxm, 0.0);
        EXPECT_GT(bsort, 0.0);
    }

    TEST_F(CollectorTest, AForkedChildProfilesIntoItsOwnFile)
    {
        const Profiled parent = profile({ PPE_LAUNCHER, "--mode", "cpu", PPE_FORK_CHILD }, {}, "fork.ppe");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(parent.run.out, m, std::regex("child ([0-9]+) "))) << parent.run.out;
        const std::string childPid = m[1];
        auto child = readProfile(m_dir.file("fork." + childPid + ".ppe"));
        ASSERT_TRUE(child) << child.error().str() << "\n" << parent.run.err;
        EXPECT_EQ(child->pid, std::stoull(childPid));
        EXPECT_EQ(child->parentPid, parent.profile.pid);
        const auto symbols = functionSymbols(PPE_FORK_CHILD);
        const FunctionSymbol inParent = findFunction(symbols, "in_parent");
        const FunctionSymbol inChild = findFunction(symbols, "in_child");
        // Each process's profile holds its own loop and (almost) nothing of the other's.
        EXPECT_GT(double(hitsIn(parent.profile, inParent)), 0.9 * double(parent.profile.inRange()));
        EXPECT_LT(double(hitsIn(parent.profile, inChild)), 0.02 * double(parent.profile.inRange()));
        EXPECT_GT(double(hitsIn(*child, inChild)), 0.9 * double(child->inRange()));
        EXPECT_EQ(hitsIn(*child, inParent), 0u);
        // Exactly one profile per process.
        int files = 0;
        for (const auto& entry : std::filesystem::directory_iterator(m_dir.path()))
            files += entry.path().extension() == ".ppe";
        EXPECT_EQ(files, 2);
    }

    // With PPE_CHECKPOINT a forked child starts its own collector thread: its checkpoints come while
    // it runs, under its own name, and its end is its own complete profile.
    TEST_F(CollectorTest, AForkedChildWritesItsOwnCheckpoints)
    {
        const Running running = startProgram({ PPE_LAUNCHER, "--mode", "cpu", PPE_FORK_CHILD, "12" },
            { { "PPE_OUT", m_dir.file("fork.ppe") }, { "PPE_CHECKPOINT", "1" } }, m_dir.path());
        std::string childCheckpoint;
        for (int polls = 0; polls < 5000 && childCheckpoint.empty(); ++polls) {
            std::error_code ec;
            for (const auto& entry : std::filesystem::directory_iterator(m_dir.path(), ec)) {
                const std::string name = entry.path().filename().string();
                if (!std::regex_match(name, std::regex(R"(fork\.[0-9]+\.ppe)")))
                    continue;
                auto p = readProfile(entry.path().string());
                if (p && p->status == ProfileStatus::Checkpoint)
                    childCheckpoint = entry.path().string();
            }
            usleep(2000); // polling interval only: the condition is the file
        }
        const RunResult run = waitProgram(running);
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        ASSERT_FALSE(childCheckpoint.empty()) << "the child wrote no checkpoint\n" << run.err;
        auto child = readProfile(childCheckpoint);
        ASSERT_TRUE(child) << child.error().str();
        EXPECT_EQ(child->status, ProfileStatus::Complete) << "the child's end replaced its checkpoints";
        auto parent = readProfile(m_dir.file("fork.ppe"));
        ASSERT_TRUE(parent) << parent.error().str();
        EXPECT_EQ(parent->status, ProfileStatus::Complete);
        EXPECT_EQ(child->parentPid, parent->pid);
    }

    // A vfork child shares the parent's memory: its exec must neither write nor stop the parent's
    // profile (the exec'd program writes its own).
    TEST_F(CollectorTest, AVforkChildsExecLeavesTheParentsProfileAlone)
    {
        const Profiled p = profile({ PPE_LAUNCHER, "--mode", "cpu", PPE_VFORK_EXEC }, {}, "v.ppe");
        EXPECT_EQ(p.profile.endReason, "exit");
        EXPECT_EQ(p.profile.status, ProfileStatus::Complete);
        const FunctionSymbol work = findFunction(functionSymbols(PPE_VFORK_EXEC), "work");
        // Both halves of the work, before and after the vfork, are in the parent's profile.
        EXPECT_GT(double(hitsIn(p.profile, work)), 0.9 * double(p.profile.inRange()));
        EXPECT_GT(p.profile.activeTime, 0.8 * (p.profile.cpuUser + p.profile.cpuSystem)) << "sampling ran to the end";
    }

    // ---- PPE_ON and the environment ----

    TEST_F(CollectorTest, WithoutPpeOnTheLinkedCollectorLeavesNoTrace)
    {
        const RunResult bare = runProgram({ PPE_PROBE_STATE }, { { "PPE_ON", "", true } }, m_dir.path());
        EXPECT_EQ(bare.err, "");
        EXPECT_EQ(bare.out, "sigprof-handler 0\nsigtrap-handler 0\nposix-timers 0\nitimer-prof 0\nperf-fds 0\n");
        EXPECT_TRUE(std::filesystem::is_empty(m_dir.path()));
        EXPECT_FALSE(fileExists(std::string(PPE_PROBE_STATE) + ".ppe"));
        // With PPE_ON the collector runs: its profile is written. (The probe may see nothing of it:
        // where the hard descriptor limit is the soft one perf-ring keeps no descriptor, issue 33.)
        const RunResult on = runProgram({ PPE_PROBE_STATE }, { { "PPE_ON", "1" }, { "PPE_OUT", m_dir.file("p.ppe") } });
        EXPECT_TRUE(fileExists(m_dir.file("p.ppe"))) << on.err;
    }

    TEST_F(CollectorTest, WithoutPpeOnNothingIsWrittenOrPrinted)
    {
        const std::string defaultOutput = example("simp") + ".ppe";
        struct stat before { };
        const bool existed = lstat(defaultOutput.c_str(), &before) == 0;
        const RunResult r = runProgram({ example("simp"), "1000003" }, { { "PPE_ON", "", true } }, m_dir.path());
        EXPECT_EQ(r.err, "");
        EXPECT_EQ(r.out, "1000003\n");
        EXPECT_TRUE(std::filesystem::is_empty(m_dir.path()));
        struct stat after { };
        EXPECT_EQ(lstat(defaultOutput.c_str(), &after) == 0, existed);
        if (existed) {
            EXPECT_EQ(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec);
        }
    }

    TEST_F(CollectorTest, SmallMemoryBudgetDoublesTheBinWidth)
    {
        const Profiled wide = profile({ example("simp_fullstatic"), kPrime }, { { "PPE_MEM", "2" } });
        const Profile& p = wide.profile;
        const uint64_t budget = 2 * 512;
        const uint64_t length = p.rangeEnd - p.rangeStart;
        EXPECT_LE(p.binCount * 4, budget);
        EXPECT_EQ(p.binCount, (length + p.binWidth - 1) / p.binWidth);
        EXPECT_GT((length + p.binWidth / 2 - 1) / (p.binWidth / 2) * 4, budget) << "a narrower bin would have fit";
        EXPECT_GT(p.binWidth, 64u);
        const Profiled narrow = profile({ example("simp_fullstatic"), kPrime }, {}, "narrow.ppe");
        EXPECT_LT(narrow.profile.binWidth, p.binWidth);
        EXPECT_LE(narrow.profile.binCount * 4, 2048u * 512);
    }

    TEST_F(CollectorTest, BadValuesKeepTheDefaultsWithOneWarningEach)
    {
        const Profiled p = profile(
            { example("simp"), "1000003" }, { { "PPE_INT", "5ms" }, { "PPE_MEM", "-3" }, { "PPE_MODE", "2" } });
        EXPECT_EQ(countLines(p.run.err, "ppe: PPE_INT=\"5ms\": not a positive decimal integer; using 5000"), 1)
            << p.run.err;
        EXPECT_EQ(countLines(p.run.err, "ppe: PPE_MEM=\"-3\""), 1) << p.run.err;
        EXPECT_EQ(countLines(p.run.err, "ppe: PPE_MODE=\"2\""), 1) << p.run.err;
        EXPECT_EQ(p.profile.interval, 5000u);
        EXPECT_EQ(p.profile.mode, SampleMode::Real);
    }

    // ---- the output file ----

    TEST_F(CollectorTest, AnExistingProfileIsKeptAsANumberedBackup)
    {
        const Profiled first = profile({ example("simp"), "1000003" });
        const Profiled second = profile({ example("simp"), "1000003" });
        auto kept = readProfile(m_dir.file("out.ppe.~1~"));
        ASSERT_TRUE(kept) << kept.error().str();
        EXPECT_EQ(kept->pid, first.profile.pid);
        EXPECT_NE(second.profile.pid, first.profile.pid);
        for (const auto& entry : std::filesystem::directory_iterator(m_dir.path()))
            EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos) << entry.path();
    }

    // The launcher writes into the current directory, like perf.data and gmon.out (issue 18: as
    // root, `ppe dd` wrote /usr/bin/dd.ppe); a linked program keeps PPE's "beside the executable".
    TEST_F(CollectorTest, DefaultOutputIsTheCurrentDirectoryForTheLauncherBesideTheExecutableWhenLinked)
    {
        const std::string copy = m_dir.file("simp_copy");
        std::filesystem::copy_file(example("simp_plain"), copy);
        TempDir elsewhere;
        const RunResult r
            = runProgram({ PPE_LAUNCHER, copy, "1000003" }, { { "PPE_OUT", "", true } }, elsewhere.path());
        EXPECT_TRUE(r.exited && r.status == 0) << r.err;
        EXPECT_TRUE(readProfile(elsewhere.file("simp_copy.ppe"))) << r.err;
        EXPECT_FALSE(fileExists(copy + ".ppe"));
        EXPECT_EQ(countLines(r.err, "ppe: output file is " + elsewhere.file("simp_copy.ppe")), 1) << r.err;
        const std::string linked = m_dir.file("simp_linked");
        std::filesystem::copy_file(example("simp"), linked);
        const RunResult l
            = runProgram({ linked, "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", "", true } }, elsewhere.path());
        EXPECT_TRUE(l.exited && l.status == 0) << l.err;
        EXPECT_TRUE(readProfile(linked + ".ppe")) << l.err;
    }

    TEST_F(CollectorTest, UnwritableDirectoryFallsBackToTheCurrentDirectory)
    {
        const RunResult r = runProgram({ example("simp"), "1000003" },
            { { "PPE_ON", "1" }, { "PPE_OUT", "/proc/ppe-no-such-dir/fallback.ppe" } }, m_dir.path());
        EXPECT_TRUE(r.exited && r.status == 0);
        EXPECT_TRUE(readProfile(m_dir.file("fallback.ppe"))) << r.err;
        EXPECT_EQ(countLines(r.err, "ppe: cannot write /proc/ppe-no-such-dir/fallback.ppe"), 1) << r.err;
    }

    TEST_F(CollectorTest, RelativeOutputIsResolvedAtStartUp)
    {
        // The program's own chdir must not move the profile: simp does not chdir, so run it from a
        // directory and check the file lands there under the relative name.
        const RunResult r
            = runProgram({ example("simp"), "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", "rel.ppe" } }, m_dir.path());
        EXPECT_TRUE(r.exited && r.status == 0);
        EXPECT_TRUE(readProfile(m_dir.file("rel.ppe"))) << r.err;
    }

    // ---- the launcher ----

    TEST_F(CollectorTest, LauncherPassesStatusAndSignalsThrough)
    {
        const RunResult exit7 = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("a.ppe"), "sh", "-c", "exit 7" });
        EXPECT_TRUE(exit7.exited);
        EXPECT_EQ(exit7.status, 7);
        const RunResult killed = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("b.ppe"), "sh", "-c", "kill -TERM $$" });
        EXPECT_FALSE(killed.exited);
        EXPECT_EQ(killed.signal, SIGTERM);
        const RunResult missing = runProgram({ PPE_LAUNCHER, "/nonexistent/program" });
        EXPECT_EQ(missing.status, 127);
        EXPECT_NE(missing.err.find("ppe: error: cannot run /nonexistent/program"), std::string::npos) << missing.err;
        const RunResult bad = runProgram({ PPE_LAUNCHER, "--mem", "lots", "true" });
        EXPECT_EQ(bad.status, 125);
        EXPECT_NE(bad.err.find("ppe: error: --mem lots: not a positive decimal integer"), std::string::npos) << bad.err;
        const RunResult none = runProgram({ PPE_LAUNCHER });
        EXPECT_EQ(none.status, 125);
    }

    // A static executable without the collector, or one that runs set-user-ID as another user, cannot
    // be preloaded: ppe used to run it and leave no profile and no word (issues 18, 25).
    TEST_F(CollectorTest, LauncherSaysWhyItCannotReachStaticOrSetuidPrograms)
    {
        const RunResult stat = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("s.ppe"), PPE_STATIC_PLAIN, "return", "0" });
        EXPECT_EQ(stat.status, 126);
        EXPECT_NE(stat.err.find("is statically linked: LD_PRELOAD cannot reach it"), std::string::npos) << stat.err;
        EXPECT_NE(stat.err.find("-l:libppe.a"), std::string::npos) << stat.err;
        EXPECT_FALSE(fileExists(m_dir.file("s.ppe")));
        // A static program that carries the collector is profiled as before.
        const RunResult linked
            = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("f.ppe"), example("simp_fullstatic"), "1000003" });
        EXPECT_EQ(linked.status, 0) << linked.err;
        EXPECT_TRUE(fileExists(m_dir.file("f.ppe"))) << linked.err;
        if (geteuid() != 0)
            GTEST_SKIP() << "the set-user-ID case needs root (to give a copy to another owner)";
        const std::string copy = m_dir.file("suid");
        ASSERT_EQ(runProgram({ "cp", example("simp_plain"), copy }).status, 0);
        ASSERT_EQ(chown(copy.c_str(), 65534, 65534), 0) << std::strerror(errno);
        ASSERT_EQ(chmod(copy.c_str(), 04755), 0) << std::strerror(errno);
        const RunResult suid = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("u.ppe"), copy, "1003" });
        EXPECT_EQ(suid.status, 126);
        EXPECT_NE(suid.err.find("set-user-ID or set-group-ID as another user"), std::string::npos) << suid.err;
    }

    // Files and processes under the launcher (issue 18): the output is checked before the program
    // runs, its default is the current directory, and every program the launched one runs writes
    // under its own name and pid (an exec'd `ls` used to write the launched program's file).
    TEST_F(CollectorTest, LauncherNamesEveryProgramsOwnFile)
    {
        const RunResult missing = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("none/"), "sh", "-c", "echo ran" });
        EXPECT_EQ(missing.status, 125);
        EXPECT_EQ(missing.out, "") << "the program must not run";
        EXPECT_NE(missing.err.find("no such directory"), std::string::npos) << missing.err;
        const std::string dir = m_dir.file("runs");
        ASSERT_EQ(mkdir(dir.c_str(), 0755), 0);
        const char* script = "ls / >/dev/null; ls / >/dev/null; true";
        const RunResult family = runProgram({ PPE_LAUNCHER, "-o", dir, "sh", "-c", script });
        ASSERT_EQ(family.status, 0) << family.err;
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            names.push_back(entry.path().filename().string());
        ASSERT_EQ(names.size(), 3u) << ::testing::PrintToString(names);
        const auto named = [&names](const char* pattern) {
            return std::count_if(names.begin(), names.end(),
                [&](const std::string& n) { return std::regex_match(n, std::regex(pattern)); });
        };
        EXPECT_EQ(named(R"((sh|dash|bash)\.[0-9]+\.ppe)"), 1) << ::testing::PrintToString(names);
        EXPECT_EQ(named(R"(ls\.[0-9]+\.ppe)"), 2) << ::testing::PrintToString(names);
        // --no-children: the launched program only; without -o, the current directory.
        const std::string cwd = m_dir.file("cwd");
        ASSERT_EQ(mkdir(cwd.c_str(), 0755), 0);
        const RunResult only = runProgram({ PPE_LAUNCHER, "--no-children", "sh", "-c", script }, {}, cwd);
        ASSERT_EQ(only.status, 0) << only.err;
        const auto count = std::distance(std::filesystem::directory_iterator(cwd), {});
        EXPECT_EQ(count, 1) << "only the launched program's profile, in the current directory";
    }

    // `-o -` used to leave a file named `-` (issue 25): it is refused before the program runs.
    TEST_F(CollectorTest, LauncherRefusesOutputToStandardOutput)
    {
        const RunResult dash = runProgram({ PPE_LAUNCHER, "-o", "-", "sh", "-c", "echo ran" }, {}, m_dir.path());
        EXPECT_EQ(dash.status, 125);
        EXPECT_EQ(dash.out, "") << "the program must not run";
        EXPECT_NE(dash.err.find("ppe: error: -o -:"), std::string::npos) << dash.err;
        EXPECT_FALSE(fileExists(m_dir.file("-")));
    }

    TEST_F(CollectorTest, LauncherOptionsBecomeSettings)
    {
        const RunResult r = runProgram({ PPE_LAUNCHER, "-o", m_dir.file("o.ppe"), "-m", "64", "-F", "1000", "--mode",
            "cpu", example("simp_plain"), "1000003" });
        ASSERT_TRUE(r.exited && r.status == 0) << r.err;
        auto p = readProfile(m_dir.file("o.ppe"));
        ASSERT_TRUE(p) << p.error().str();
        EXPECT_EQ(p->interval, 10000u);
        EXPECT_EQ(p->mode, SampleMode::Cpu);
        EXPECT_LE(p->binCount * 4, 64u * 512);
    }

} // namespace
} // namespace ppe::testing
