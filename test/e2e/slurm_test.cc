// The endings a batch scheduler deals out, under a real one-node Slurm (test/slurm/cluster.sh): the
// time limit, scancel, a signal the program handles itself, SIGKILL, the memory limit. Every test
// checks the profile's samples against the CPU time the job used, read from /proc while it ran.
#include "batch_support.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace ppe::testing {
namespace {

    class SlurmTest : public ::testing::Test {
    protected:
        void SetUp() override
        {
            const std::string why = slurmSkipReason();
            if (!why.empty())
                GTEST_SKIP() << why;
        }

        // The job's CPU time until it ends (polled every 50 ms), at most `seconds`; `cpuBefore`: its
        // CPU time read just before it was signalled (it may be gone at once).
        double cpuUntilEnd(int pid, double seconds, double cpuBefore = 0)
        {
            CpuWatch cpu(pid);
            for (int polls = 0; polls < int(seconds * 20) && cpu.poll(); ++polls)
                usleep(50000);
            return std::max(cpu.lastSeconds(), cpuBefore);
        }

        // The first checkpoint that appears in `profile` (polled every 50 ms, for at most `seconds`),
        // when it was seen, and the process's CPU time then.
        struct Snapshot {
            std::optional<Profile> checkpoint;
            std::chrono::steady_clock::time_point seen;
            double cpu = 0;
        };

        Snapshot firstCheckpoint(int pid, const std::string& profile, double seconds)
        {
            Snapshot s;
            CpuWatch cpu(pid);
            for (int polls = 0; polls < int(seconds * 20) && cpu.poll(); ++polls) {
                auto p = readProfile(profile);
                if (p && p->status == ProfileStatus::Checkpoint) {
                    s.seen = std::chrono::steady_clock::now();
                    s.checkpoint = *p;
                    s.cpu = cpu.lastSeconds();
                    break;
                }
                usleep(50000);
            }
            return s;
        }

        // The job's pid once it works, and its CPU time once it has used `cpuSeconds`.
        int startedJob(const std::string& output, double cpuSeconds)
        {
            const int pid = waitForWorking(output, 60);
            EXPECT_GT(pid, 0) << "the job did not start: " << readFile(output);
            while (pid > 0 && processCpuSeconds(pid) >= 0 && processCpuSeconds(pid) < cpuSeconds)
                usleep(20000);
            return pid;
        }

        Profile profileAt(const std::string& path)
        {
            auto p = readProfile(path);
            EXPECT_TRUE(p) << p.error().str();
            return p ? *p : Profile {};
        }

        // `scancel` of a running job: it ends CANCELLED with a complete profile; the job's CPU time
        // until it ended.
        struct Cancelled {
            Profile profile;
            double cpu = 0;
        };
        Cancelled cancel(const std::string& id, int pid, const std::string& profile)
        {
            const double before = processCpuSeconds(pid);
            runSlurm({ "scancel", id });
            Cancelled c;
            c.cpu = cpuUntilEnd(pid, 30, before);
            EXPECT_EQ(waitForJobEnd(id, 60), "CANCELLED");
            c.profile = profileAt(profile);
            EXPECT_EQ(c.profile.status, ProfileStatus::Complete);
            return c;
        }

        TempDir m_dir;
    };

    // `sbatch -t 1`: Slurm ends the job at its limit with SIGTERM; the profile is complete and says
    // so.
    TEST_F(SlurmTest, TimeLimitEndsTheJobWithACompleteProfile)
    {
        const std::string out = m_dir.file("limit.ppe");
        const std::string log = m_dir.file("limit.out");
        const std::string id
            = submitJob({ "-t", "1" }, { PPE_BATCH_JOB, "0" }, log, { { "PPE_ON", "1" }, { "PPE_OUT", out } });
        ASSERT_FALSE(id.empty());
        const int pid = startedJob(log, 0);
        ASSERT_GT(pid, 0);
        const double cpu = cpuUntilEnd(pid, 200);
        EXPECT_EQ(waitForJobEnd(id, 60), "TIMEOUT");
        const Profile p = profileAt(out);
        EXPECT_EQ(p.status, ProfileStatus::Complete);
        EXPECT_EQ(p.endReason, "signal 15");
        expectSamplesMatchCpu(p, cpu, 0.2);
    }

    // `sbatch -t 2 --signal=B:USR2@40` with PPE_SNAPSHOT_SIGNAL=USR2: USR2 comes 40 s before the
    // limit, or up to a minute earlier (Slurm looks at its jobs' warnings every so often), so 20 to
    // 80 s after the start; it writes a checkpoint of the samples so far and the job carries on
    // (here until scancel, a few CPU seconds later, rather than for the rest of its two minutes).
    TEST_F(SlurmTest, WarningSignalWritesASnapshotAndTheJobCarriesOn)
    {
        const std::string out = m_dir.file("warned.ppe");
        const std::string log = m_dir.file("warned.out");
        const std::string id = submitJob({ "-t", "2", "--signal=B:USR2@40" }, { PPE_BATCH_JOB, "0" }, log,
            { { "PPE_ON", "1" }, { "PPE_OUT", out }, { "PPE_SNAPSHOT_SIGNAL", "USR2" } });
        ASSERT_FALSE(id.empty());
        const int pid = startedJob(log, 0);
        ASSERT_GT(pid, 0);
        const auto started = std::chrono::steady_clock::now();
        const Snapshot s = firstCheckpoint(pid, out, 100);
        ASSERT_TRUE(s.checkpoint) << "no snapshot on the warning signal within 100 s";
        const double after = std::chrono::duration<double>(s.seen - started).count();
        EXPECT_GE(after, 19.0) << "USR2 came earlier than 60 s before the limit";
        EXPECT_LE(after, 81.0) << "USR2 came later than 40 s before the limit";
        EXPECT_NEAR(s.checkpoint->wallTime, after, 2.0) << "the snapshot is not the one the signal asked for";
        EXPECT_EQ(s.checkpoint->endReason, "checkpoint");
        expectSamplesMatchCpu(*s.checkpoint, s.cpu, 0.5);
        while (processCpuSeconds(pid) >= 0 && processCpuSeconds(pid) < s.cpu + 3)
            usleep(50000);
        EXPECT_EQ(jobState(id), "RUNNING") << "the job did not carry on after the snapshot";
        const Cancelled c = cancel(id, pid, out);
        EXPECT_GT(c.profile.total, s.checkpoint->total);
        expectSamplesMatchCpu(c.profile, c.cpu, 0.5);
    }

    TEST_F(SlurmTest, ScancelEndsTheJobWithItsProfile)
    {
        const std::string out = m_dir.file("cancelled.ppe");
        const std::string log = m_dir.file("cancelled.out");
        const std::string id
            = submitJob({}, { PPE_LAUNCHER, "-o", out, PPE_BATCH_JOB_PLAIN, "0" }, log, { { "PPE_ON", "", true } });
        ASSERT_FALSE(id.empty());
        const int pid = startedJob(log, 1.0);
        ASSERT_GT(pid, 0);
        const Cancelled c = cancel(id, pid, out);
        EXPECT_EQ(c.profile.endReason, "signal 15");
        expectSamplesMatchCpu(c.profile, c.cpu, 0.5); // scancel may take a while to arrive
    }

    // `scancel --signal=USR1`: a program that handles USR1 carries on and ends by itself; one that
    // does not is ended by it, as without the collector, and its profile says so.
    TEST_F(SlurmTest, Usr1FromScancelIsTheProgramsToHandle)
    {
        const std::string handled = m_dir.file("handled.ppe");
        const std::string handledLog = m_dir.file("handled.out");
        const std::string plain = m_dir.file("plain.ppe");
        const std::string plainLog = m_dir.file("plain.out");
        const std::string a = submitJob(
            {}, { PPE_BATCH_JOB, "2", "own-usr1" }, handledLog, { { "PPE_ON", "1" }, { "PPE_OUT", handled } });
        ASSERT_FALSE(a.empty());
        const std::string b
            = submitJob({}, { PPE_BATCH_JOB, "0" }, plainLog, { { "PPE_ON", "1" }, { "PPE_OUT", plain } });
        ASSERT_FALSE(b.empty());
        // Each is signalled as soon as it runs: the handled one has 1.5 s of CPU left then, which a
        // wait for the other job to start could use up on a loaded machine (it would end unsignalled).
        const int handledPid = startedJob(handledLog, 0.5);
        ASSERT_GT(handledPid, 0);
        runSlurm({ "scancel", "--signal=USR1", "--batch", a });
        const int plainPid = startedJob(plainLog, 0.5);
        ASSERT_GT(plainPid, 0);
        const double plainBefore = processCpuSeconds(plainPid);
        runSlurm({ "scancel", "--signal=USR1", "--batch", b });
        const double plainCpu = cpuUntilEnd(plainPid, 30, plainBefore);
        EXPECT_EQ(waitForJobEnd(a, 60), "COMPLETED");
        EXPECT_EQ(waitForJobEnd(b, 60), "FAILED");
        const std::string said = readFile(handledLog);
        EXPECT_NE(said.find("usr1 1"), std::string::npos) << said;
        const size_t cpu = said.find("cpu ");
        ASSERT_NE(cpu, std::string::npos) << said;
        const Profile h = profileAt(handled);
        EXPECT_EQ(h.endReason, "exit");
        expectSamplesMatchCpu(h, std::stod(said.substr(cpu + 4)), 0.1);
        const Profile p = profileAt(plain);
        EXPECT_EQ(p.status, ProfileStatus::Complete);
        EXPECT_EQ(p.endReason, "signal 10");
        expectSamplesMatchCpu(p, plainCpu, 0.5);
    }

    // The recovered live file of a killed job.
    Profile recovered(const std::string& out, int pid)
    {
        const std::string live = out + "." + std::to_string(pid) + ".live";
        EXPECT_TRUE(fileExists(live)) << "no live file " << live;
        const std::string rescued = out + ".recovered.ppe";
        const RunResult r = runProgram({ PPE_LAUNCHER, "--recover", live, "-o", rescued });
        EXPECT_TRUE(r.exited && r.status == 0) << r.err;
        auto p = readProfile(rescued);
        EXPECT_TRUE(p) << p.error().str();
        return p ? *p : Profile {};
    }

    // `scancel --signal=KILL`: nothing runs at the end; the last checkpoint (PPE_CHECKPOINT=1) is on
    // disk and the live file holds every sample.
    TEST_F(SlurmTest, KilledOutrightLeavesItsLastCheckpointAndARecoverableLiveFile)
    {
        const std::string out = m_dir.file("killed.ppe");
        const std::string log = m_dir.file("killed.out");
        const std::string id = submitJob(
            {}, { PPE_BATCH_JOB, "0" }, log, { { "PPE_ON", "1" }, { "PPE_OUT", out }, { "PPE_CHECKPOINT", "1" } });
        ASSERT_FALSE(id.empty());
        const int pid = startedJob(log, 2.5);
        ASSERT_GT(pid, 0);
        const double before = processCpuSeconds(pid);
        runSlurm({ "scancel", "--signal=KILL", "--batch", id });
        const double cpu = cpuUntilEnd(pid, 30, before);
        EXPECT_EQ(waitForJobEnd(id, 60), "FAILED");
        const Profile checkpoint = profileAt(out);
        EXPECT_EQ(checkpoint.status, ProfileStatus::Checkpoint);
        expectSamplesMatchCpu(checkpoint, cpu, 1.2); // at most one interval old
        const Profile rescued = recovered(out, pid);
        EXPECT_GE(rescued.total, checkpoint.total);
        expectSamplesMatchCpu(rescued, cpu, 0.5);
    }

    // `sbatch --mem`: a job that outgrows its memory is killed (SIGKILL) by the cgroup's OOM killer;
    // its live file still holds the profile.
    TEST_F(SlurmTest, MemoryLimitKillLeavesARecoverableLiveFile)
    {
        if (readFile(std::string(PPE_SLURM_DIR) + "/features").find("memory-cgroup") == std::string::npos)
            GTEST_SKIP() << "no writable memory cgroup here: the one-node Slurm enforces no memory limit";
        const std::string out = m_dir.file("oom.ppe");
        const std::string log = m_dir.file("oom.out");
        const std::string id = submitJob(
            { "--mem=120M" }, { PPE_BATCH_JOB, "0", "memory", "25" }, log, { { "PPE_ON", "1" }, { "PPE_OUT", out } });
        ASSERT_FALSE(id.empty());
        const int pid = startedJob(log, 0);
        ASSERT_GT(pid, 0);
        const double cpu = cpuUntilEnd(pid, 120);
        EXPECT_EQ(waitForJobEnd(id, 60), "OUT_OF_MEMORY");
        EXPECT_FALSE(fileExists(out)) << "a profile from a process killed by SIGKILL?";
        const Profile rescued = recovered(out, pid);
        EXPECT_GT(cpu, 1.0) << "killed before it had worked";
        expectSamplesMatchCpu(rescued, cpu, 0.2);
    }

    // Each task's CPU time as it printed it ("R: cpu SECONDS" from srun --label).
    std::map<int, double> cpuByTask(const std::string& out)
    {
        std::map<int, double> cpu;
        std::istringstream lines(out);
        const std::regex said(R"(^ *(\d+): cpu ([0-9.]+)$)");
        for (std::string line; std::getline(lines, line);) {
            std::smatch m;
            if (std::regex_match(line, m, said))
                cpu[std::stoi(m[1])] = std::stod(m[2]);
        }
        return cpu;
    }

    uint64_t mergedTotal(const std::string& report)
    {
        std::smatch m;
        return std::regex_search(report, m, std::regex(R"(Total count\s+(\d+))")) ? std::stoull(m[1].str()) : 0;
    }

    // `srun -n 4` of a program (linked with libppe, or under `ppe`): one profile per task, named by
    // its rank (SLURM_PROCID), each with its task's CPU time in samples; ppeout merges the folder
    // into their sum, with a line per rank.
    void expectFourTasksMerged(const std::string& dir, const std::string& program, const RunResult& run)
    {
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        const std::map<int, double> cpu = cpuByTask(run.out);
        ASSERT_EQ(cpu.size(), 4u) << run.out;
        uint64_t sum = 0;
        for (const auto& [rank, seconds] : cpu) {
            const std::string path = dir + "/" + program + ".rank" + std::to_string(rank) + ".ppe";
            auto p = readProfile(path);
            ASSERT_TRUE(p) << p.error().str() << "\n" << run.err;
            EXPECT_EQ(p->rank, std::optional<uint64_t>(rank));
            EXPECT_EQ(p->endReason, "exit");
            expectSamplesMatchCpu(*p, seconds, 0.1);
            sum += p->total;
        }
        const RunResult merged = runProgram({ PPEOUT, dir, "-" });
        ASSERT_TRUE(merged.exited && merged.status == 0) << merged.err;
        EXPECT_EQ(mergedTotal(merged.out), sum) << merged.out;
        EXPECT_NE(merged.out.find("Merged: 4 profiles"), std::string::npos) << merged.out;
        EXPECT_NE(merged.out.find("PER-RANK IMBALANCE"), std::string::npos) << merged.out;
    }

    TEST_F(SlurmTest, SrunTasksEachLeaveAProfileNamedByRankAndPpeoutMergesThem)
    {
        const std::string linked = m_dir.file("linked");
        const std::string launched = m_dir.file("launched");
        std::filesystem::create_directory(linked);
        std::filesystem::create_directory(launched);
        const RunResult a = runSlurm({ "timeout", "300", "srun", "--label", "-n", "4", PPE_BATCH_JOB, "1.5" },
            { { "PPE_ON", "1" }, { "PPE_OUT", linked + "/" } });
        expectFourTasksMerged(linked, "batch_job", a);
        const RunResult b = runSlurm({ "timeout", "300", "srun", "--label", "-n", "4", PPE_LAUNCHER, "-o",
                                         launched + "/", PPE_BATCH_JOB_PLAIN, "1.5" },
            { { "PPE_ON", "", true } });
        expectFourTasksMerged(launched, "batch_job_plain", b);
    }

    // The check itself, without Slurm: the samples a CPU time stands for pass, half of them fail,
    // under each mechanism's rule (itimer-prof's for a tick of 100, 250 and 1000 Hz, and unknown).
    Profile sampled(const std::string& mechanism, double cpuSeconds, uint64_t total)
    {
        Profile p;
        p.mechanism = mechanism;
        p.requestedRate = 1000;
        p.cpuUser = cpuSeconds;
        p.total = total;
        return p;
    }

    TEST(SampleCountCheck, HalfTheSamplesFailUnderEachMechanismsRule)
    {
        Profile perf = sampled("perf-ring", 10, 10000);
        expectSamplesMatchCpu(perf, 10, 0.1);
        perf.total /= 2;
        EXPECT_NONFATAL_FAILURE(expectSamplesMatchCpu(perf, 10, 0.1), "perf-ring at 1000 Hz");
        for (const int hz : { 100, 250, 1000 }) {
            Profile tick = sampled("itimer-prof", 10, uint64_t(10 * hz));
            expectTickLimitedSamples(tick, 10, 0.1, hz);
            tick.total /= 2;
            EXPECT_NONFATAL_FAILURE(expectTickLimitedSamples(tick, 10, 0.1, hz), "CONFIG_HZ " + std::to_string(hz));
        }
        Profile unknown = sampled("itimer-prof", 10, 1000);
        expectTickLimitedSamples(unknown, 10, 0.1, 0);
        unknown.total /= 2;
        EXPECT_NONFATAL_FAILURE(expectTickLimitedSamples(unknown, 10, 0.1, 0), "CONFIG_HZ unknown");
        const int hz = kernelTickHz();
        Profile here = sampled("itimer-prof", 10, uint64_t(10 * std::min(1000, hz > 0 ? hz : 100)));
        expectSamplesMatchCpu(here, 10, 0.1);
        here.total /= 2;
        EXPECT_NONFATAL_FAILURE(expectSamplesMatchCpu(here, 10, 0.1), "itimer-prof asked 1000 Hz");
        // Since issue 35's weights: the ticks are the samples taken, the count the CPU time.
        Profile weighted = sampled("itimer-prof", 10, 10000);
        weighted.ticks = 10 * 250;
        expectTickLimitedSamples(weighted, 10, 0.1, 250);
        weighted.ticks /= 2;
        EXPECT_NONFATAL_FAILURE(expectTickLimitedSamples(weighted, 10, 0.1, 250), "CONFIG_HZ 250");
        weighted.ticks *= 2;
        weighted.total /= 2;
        EXPECT_NONFATAL_FAILURE(expectTickLimitedSamples(weighted, 10, 0.1, 250), "the weighted count");
    }

} // namespace
} // namespace ppe::testing
