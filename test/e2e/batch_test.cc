// PPE_SNAPSHOT_SIGNAL without a batch system: the signal writes a checkpoint of the profile so far
// and the program carries on, its own handler of that signal included.
#include "batch_support.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <unistd.h>

namespace ppe::testing {
namespace {

    // Runs `argv` (batch_job, linked with libppe or started by `ppe`) until it has used `cpuBefore`
    // seconds of CPU, sends it `signal`, and returns the checkpoint that the signal made, with the
    // CPU time the process had used when it was sent.
    struct Snapshot {
        Profile checkpoint;
        double cpuAtSignal = 0;
        RunResult result;
    };

    Snapshot snapshotWith(const std::vector<std::string>& argv, const std::vector<EnvChange>& env, int signal,
        const std::string& out, double cpuBefore)
    {
        Snapshot s;
        const Running running = startProgram(argv, env);
        const int pid = waitForWorking(running.outPath, 30);
        EXPECT_GT(pid, 0) << "the job did not start";
        while (pid > 0 && processCpuSeconds(pid) >= 0 && processCpuSeconds(pid) < cpuBefore)
            usleep(10000);
        s.cpuAtSignal = processCpuSeconds(pid);
        EXPECT_FALSE(fileExists(out)) << "a profile before the snapshot was asked for";
        if (pid > 0)
            kill(pid, signal);
        for (int polls = 0; polls < 1000 && !fileExists(out); ++polls)
            usleep(5000);
        auto checkpoint = readProfile(out);
        s.result = waitProgram(running);
        EXPECT_TRUE(checkpoint) << (checkpoint ? "" : checkpoint.error().str()) << "\n" << s.result.err;
        if (checkpoint)
            s.checkpoint = *checkpoint;
        return s;
    }

    // The program's own end: exit status 0 and its last words, "cpu SECONDS".
    double cpuAtEnd(const RunResult& result)
    {
        EXPECT_TRUE(result.exited && result.status == 0) << result.err;
        const size_t at = result.out.find("cpu ");
        return at == std::string::npos ? -1 : std::stod(result.out.substr(at + 4));
    }

    TEST(SnapshotSignal, WritesACheckpointAndTheProgramCarriesOn)
    {
        TempDir dir;
        const std::string out = dir.file("job.ppe");
        const Snapshot s = snapshotWith({ PPE_BATCH_JOB, "3" },
            { { "PPE_ON", "1" }, { "PPE_OUT", out }, { "PPE_SNAPSHOT_SIGNAL", "USR2" } }, SIGUSR2, out, 1.0);
        EXPECT_EQ(s.checkpoint.status, ProfileStatus::Checkpoint);
        expectSamplesMatchCpu(s.checkpoint, s.cpuAtSignal, 0.2);
        const double cpu = cpuAtEnd(s.result);
        auto last = readProfile(out);
        ASSERT_TRUE(last) << last.error().str();
        EXPECT_EQ(last->status, ProfileStatus::Complete);
        EXPECT_EQ(last->endReason, "exit");
        EXPECT_GT(last->total, s.checkpoint.total);
        expectSamplesMatchCpu(*last, cpu, 0.1);
        EXPECT_FALSE(fileExists(out + ".~1~")) << "the run's own checkpoint was kept as a backup";
    }

    // Between periods (after ppe_pause) a snapshot is the profile so far: a batch system's warning
    // does not wait for the program to sample again. (It was dropped, as was one asked for while
    // the collector started: mpirun passes on a SIGUSR2 as soon as it has it.)
    TEST(SnapshotSignal, APausedProfileIsWrittenWhenAskedFor)
    {
        TempDir dir;
        const std::string out = dir.file("paused.ppe");
        const Snapshot s = snapshotWith({ PPE_BATCH_JOB, "2", "paused" },
            { { "PPE_ON", "1" }, { "PPE_OUT", out }, { "PPE_SNAPSHOT_SIGNAL", "USR2" } }, SIGUSR2, out, 1.0);
        EXPECT_EQ(s.checkpoint.status, ProfileStatus::Checkpoint);
        const size_t at = s.result.out.find("paused ");
        ASSERT_NE(at, std::string::npos) << s.result.out;
        double pausedAt = 0;
        int paused = -1;
        ASSERT_EQ(std::sscanf(s.result.out.c_str() + at, "paused %lf %d", &pausedAt, &paused), 2) << s.result.out;
        EXPECT_EQ(paused, 0) << "ppe_pause refused";
        // Samples for the CPU time before the pause only (the header's CPU time is the process's):
        // at the asked rate of user time, or itimer-prof's tick-bound one where perf events are refused.
        const Profile& c = s.checkpoint;
        const double expected = pausedAt * c.requestedRate * c.cpuUser / (c.cpuUser + c.cpuSystem);
        if (c.mechanism == "itimer-prof")
            expectTickLimitedSamples(c, pausedAt, 0.05, kernelTickHz());
        else
            EXPECT_NEAR(double(c.total), expected, 0.05 * c.requestedRate + 0.15 * expected) << c.mechanism;
        EXPECT_GE(c.cpuUser + c.cpuSystem, s.cpuAtSignal - 0.1);
        cpuAtEnd(s.result);
        auto last = readProfile(out);
        ASSERT_TRUE(last) << last.error().str();
        EXPECT_EQ(last->status, ProfileStatus::Complete);
        EXPECT_EQ(last->total, s.checkpoint.total) << "samples taken while paused";
    }

    // A program that handles the signal itself still gets it: the snapshot comes first.
    TEST(SnapshotSignal, TheProgramsOwnHandlerRunsToo)
    {
        TempDir dir;
        const std::string out = dir.file("own.ppe");
        const Snapshot s = snapshotWith(
            { PPE_LAUNCHER, "-o", out, "--snapshot-signal", "USR1", PPE_BATCH_JOB_PLAIN, "2", "own-usr1" }, {}, SIGUSR1,
            out, 0.5);
        EXPECT_EQ(s.checkpoint.status, ProfileStatus::Checkpoint);
        expectSamplesMatchCpu(s.checkpoint, s.cpuAtSignal, 0.2);
        cpuAtEnd(s.result);
        EXPECT_NE(s.result.out.find("usr1 1"), std::string::npos) << "the program's handler did not run\n"
                                                                  << s.result.out;
        auto last = readProfile(out);
        ASSERT_TRUE(last) << last.error().str();
        EXPECT_EQ(last->status, ProfileStatus::Complete);
    }

    TEST(SnapshotSignal, SignalsWithAnotherMeaningAreRefused)
    {
        const RunResult launcher
            = runProgram({ PPE_LAUNCHER, "--snapshot-signal", "TERM", PPE_BATCH_JOB_PLAIN, "0.1" });
        EXPECT_TRUE(launcher.exited && launcher.status == 125) << launcher.err;
        EXPECT_NE(launcher.err.find("--snapshot-signal TERM: not a signal the collector can take"), std::string::npos)
            << launcher.err;
        TempDir dir;
        const RunResult linked = runProgram({ PPE_BATCH_JOB, "0.1" },
            { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("refused.ppe") }, { "PPE_SNAPSHOT_SIGNAL", "SEGV" } },
            dir.path());
        EXPECT_TRUE(linked.exited && linked.status == 0) << linked.err;
        EXPECT_NE(
            linked.err.find("PPE_SNAPSHOT_SIGNAL=\"SEGV\": not a signal the collector can take"), std::string::npos)
            << linked.err;
    }

} // namespace
} // namespace ppe::testing
