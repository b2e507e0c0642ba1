// Issue 6's matrix: however the program ends, the profile is there and the program's exit status
// or terminating signal is exactly what it is without the collector.
#include "elf_symbols.h"
#include "profile_hits.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <vector>

namespace ppe::testing {
namespace {

    struct Ending {
        const char* how;
        const char* reason; // end-reason in the profile; nullptr: no profile expected
    };

    void PrintTo(const Ending& e, std::ostream* os) { *os << e.how; }

    class EndingTest : public ::testing::TestWithParam<Ending> {
    protected:
        TempDir m_dir;
    };

    TEST_P(EndingTest, ProfileIsWrittenAndTheEndingIsUnchanged)
    {
        const Ending& e = GetParam();
        const RunResult bare = runProgram({ PPE_ENDINGS, e.how }, { { "PPE_ON", "", true } }, m_dir.path());
        const std::string out = m_dir.file("end.ppe");
        const RunResult profiled
            = runProgram({ PPE_LAUNCHER, "-o", out, "--mode", "cpu", PPE_ENDINGS, e.how }, {}, m_dir.path());
        EXPECT_EQ(profiled.exited, bare.exited) << profiled.err;
        EXPECT_EQ(profiled.status, bare.status) << profiled.err;
        EXPECT_EQ(profiled.signal, bare.signal) << profiled.err;
        EXPECT_EQ(profiled.coreDumped, bare.coreDumped) << profiled.err;
        // An exec'd program inherits PPE_OUT: its own profile takes the plain name, ours is the backup.
        const bool exec = std::string(e.reason) == "exec";
        auto profile = readProfile(exec ? out + ".~1~" : out);
        ASSERT_TRUE(profile) << profile.error().str() << "\n" << profiled.err;
        EXPECT_EQ(profile->endReason, e.reason);
        const FunctionSymbol work = findFunction(functionSymbols(PPE_ENDINGS), "work");
        uint64_t inWork = 0;
        for (const Bin& b : profile->bins)
            inWork += b.address >= work.address && b.address < work.address + work.size ? b.count : 0;
        // About 0.1 s of CPU: 200 samples, or some 25 where perf events are refused (the tick).
        EXPECT_GT(inWork, profile->mechanism == "itimer-prof" ? 5u : 20u) << "the work before the ending was sampled";
        EXPECT_NE(profiled.err.find("ppe: output file is " + out), std::string::npos) << profiled.err;
        if (exec) {
            auto successor = readProfile(out);
            ASSERT_TRUE(successor) << successor.error().str();
            EXPECT_EQ(successor->command.at(0), "true") << "the new image is profiled in its turn";
        }
    }

    INSTANTIATE_TEST_SUITE_P(Endings, EndingTest,
        ::testing::Values(Ending { "return", "exit" }, Ending { "exit", "exit" }, Ending { "_exit", "_exit" },
            Ending { "_Exit", "_exit" }, Ending { "abort", "signal 6" }, Ending { "segv", "signal 11" },
            Ending { "fpe", "signal 8" }, Ending { "ill", "signal 4" }, Ending { "term", "signal 15" },
            Ending { "int", "signal 2" }, Ending { "hup", "signal 1" }, Ending { "xcpu", "signal 24" },
            Ending { "usr1", "signal 10" }, Ending { "usr2", "signal 12" }, Ending { "pipe", "signal 13" },
            Ending { "quit", "signal 3" }, Ending { "alrm", "signal 14" }, Ending { "exec", "exec" },
            Ending { "execvp", "exec" }, Ending { "own-term", "_exit" }, Ending { "ignored-hup", "exit" }),
        [](const auto& info) {
            std::string name = info.param.how;
            for (char& c : name)
                c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
            return name;
        });

} // namespace
} // namespace ppe::testing

namespace ppe::testing {
namespace {

    std::string findLiveFile(const std::string& dir)
    {
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            if (entry.path().extension() == ".live")
                return entry.path().string();
        }
        return "";
    }

    // SIGKILL runs no handler at all: the samples survive in the live file, and `ppe --recover`
    // turns it into a profile marked recovered.
    TEST(SigkillTest, TheLiveFileKeepsEverySample)
    {
        TempDir dir;
        const std::string out = dir.file("killed.ppe");
        const RunResult killed = runProgram({ PPE_LAUNCHER, "-o", out, "--mode", "cpu", PPE_ENDINGS, "kill", "3" });
        ASSERT_FALSE(killed.exited);
        ASSERT_EQ(killed.signal, SIGKILL);
        EXPECT_FALSE(fileExists(out));
        const std::string live = findLiveFile(dir.path());
        ASSERT_FALSE(live.empty()) << "no live file left behind";
        const RunResult recovered = runProgram({ PPE_LAUNCHER, "--recover", live });
        ASSERT_EQ(recovered.status, 0) << recovered.err;
        auto profile = readProfile(out);
        ASSERT_TRUE(profile) << profile.error().str();
        EXPECT_EQ(profile->status, ProfileStatus::Recovered);
        EXPECT_EQ(profile->endReason, "killed");
        EXPECT_GE(profile->endTime, profile->startTime);
        // Every CPU second at 2 kHz is in the file (the perf mechanisms sample user time: allow 25 %).
        if (takesAskedRate(*profile)) {
            const double expected = killed.cpuSeconds * 2000.0;
            EXPECT_GT(double(profile->total), 0.75 * expected) << killed.cpuSeconds << " s of CPU";
            EXPECT_LT(double(profile->total), 1.1 * expected) << killed.cpuSeconds << " s of CPU";
        }
        EXPECT_TRUE(fileExists(live)) << "recovery does not delete what it read";
        // Any live file, whatever its name (issue 18: a renamed one was refused): LIVE.ppe.
        const std::string renamed = dir.file("copied-from-node17.live");
        std::filesystem::copy_file(live, renamed);
        const RunResult other = runProgram({ PPE_LAUNCHER, "--recover", renamed });
        ASSERT_EQ(other.status, 0) << other.err;
        EXPECT_TRUE(readProfile(dir.file("copied-from-node17.ppe"))) << other.err;
        const RunResult bad = runProgram({ PPE_LAUNCHER, "--recover", PPE_ENDINGS, "-o", dir.file("x.ppe") });
        EXPECT_EQ(bad.status, 1);
        EXPECT_NE(bad.err.find("not a ppe live profile"), std::string::npos) << bad.err;
    }

    // Killed at a point chosen while it runs (once the live file holds a sample count picked at
    // random): the recovered profile holds at least every sample taken before the kill.
    TEST(SigkillTest, KilledAtARandomPointLosesNothingBeforeIt)
    {
        TempDir dir;
        std::srand(unsigned(::getpid()));
        const uint64_t target = 500 + uint64_t(std::rand() % 1500);
        const Running running
            = startProgram({ PPE_LAUNCHER, "-o", dir.file("long.ppe"), "--mode", "cpu", PPE_ENDINGS, "return", "200" });
        uint64_t seen = 0;
        std::string live;
        for (int polls = 0; polls < 20000 && seen < target; ++polls) {
            if (live.empty())
                live = findLiveFile(dir.path());
            if (!live.empty()) {
                auto text = recoverLiveFile(live);
                auto p = text ? parseProfile(*text, live) : Result<Profile>(Error { live, 0, "unreadable" });
                seen = p ? p->inRange() : 0;
            }
            usleep(2000); // polling interval only: the condition is the sample count
        }
        kill(running.pid, SIGKILL);
        const RunResult result = waitProgram(running);
        ASSERT_EQ(result.signal, SIGKILL);
        ASSERT_GE(seen, target) << "the program never reached " << target << " samples";
        auto text = recoverLiveFile(live);
        ASSERT_TRUE(text) << text.error().str();
        auto profile = parseProfile(*text, live);
        ASSERT_TRUE(profile) << profile.error().str();
        EXPECT_GE(profile->inRange(), seen);
    }

} // namespace
} // namespace ppe::testing

namespace ppe::testing {
namespace {

    long ownTicks(const RunResult& r)
    {
        const size_t at = r.out.find("own ticks ");
        return at == std::string::npos ? -1 : std::atol(r.out.c_str() + at + 10);
    }

    struct Conflict {
        const char* name;
        const char* mode;
        const char* timer;
        bool collectorSamples; // false: the collector steps aside (it was using ITIMER_PROF too)
    };

    void PrintTo(const Conflict& c, std::ostream* os) { *os << c.name; }

    class ConflictTest : public ::testing::TestWithParam<Conflict> {
    protected:
        TempDir m_dir;
    };

    // A program that uses SIGPROF and ITIMER_PROF itself keeps working under the collector.
    TEST_P(ConflictTest, TheProgramsOwnProfilerKeepsWorking)
    {
        const Conflict& c = GetParam();
        if (std::string_view(c.timer) == "perf" && !perfEventsAvailable())
            GTEST_SKIP() << "perf events are refused here (perf_event_open): the perf mechanism cannot run";
        const RunResult bare = runProgram({ PPE_OWN_SIGPROF }, { { "PPE_ON", "", true } });
        ASSERT_GT(ownTicks(bare), 10) << bare.out;
        const RunResult profiled = runProgram(
            { PPE_LAUNCHER, "-o", m_dir.file("c.ppe"), "--mode", c.mode, "--timer", c.timer, PPE_OWN_SIGPROF });
        ASSERT_EQ(profiled.status, 0) << profiled.err;
        // Its own CPU-time ticks arrive as before (the collector's signals are not counted as its).
        EXPECT_GT(ownTicks(profiled), ownTicks(bare) / 2) << profiled.out;
        EXPECT_LT(ownTicks(profiled), ownTicks(bare) * 2) << profiled.out;
        auto profile = readProfile(m_dir.file("c.ppe"));
        ASSERT_TRUE(profile) << profile.error().str() << "\n" << profiled.err;
        if (c.collectorSamples) {
            EXPECT_GT(profile->inRange(), 100u) << profiled.err;
        } else {
            EXPECT_NE(profiled.err.find("ppe: the program sets ITIMER_PROF itself"), std::string::npos) << profiled.err;
        }
    }

    INSTANTIATE_TEST_SUITE_P(SigprofConflicts, ConflictTest,
        ::testing::Values(Conflict { "real_time_posix_timer", "real", "posix", true },
            Conflict { "cpu_time_perf", "cpu", "perf", true }, Conflict { "cpu_time_itimer", "cpu", "itimer", false }),
        [](const auto& info) { return std::string(info.param.name); });

} // namespace
} // namespace ppe::testing

namespace ppe::testing {
namespace {

    // PPE_CHECKPOINT: a long run killed at a random point loses at most one checkpoint interval even
    // without its live file (a node crash): the last checkpoint holds all but the last interval.
    TEST(CheckpointTest, KilledAtARandomPointTheLastCheckpointLacksAtMostOneInterval)
    {
        TempDir dir;
        const std::string out = dir.file("long.ppe");
        std::srand(unsigned(::getpid()) * 7);
        const uint64_t target = 6000 + uint64_t(std::rand() % 6000); // after 3-6 checkpoints of 1 s at 2 kHz
        // 2000 samples a second of this CPU-bound program: perf events; where they are refused the
        // fallback is tick-bound, and the POSIX timer of real time (asked for by name) keeps the rate.
        const bool perf = perfEventsAvailable();
        const Running running
            = startProgram({ PPE_LAUNCHER, "-o", out, "--mode", perf ? "cpu" : "real", PPE_ENDINGS, "return", "200" },
                { { "PPE_CHECKPOINT", "1" }, { "PPE_TIMER", perf ? "auto" : "posix" } });
        uint64_t checkpointed = 0;
        for (int polls = 0; polls < 30000 && checkpointed < target; ++polls) {
            if (fileExists(out)) {
                auto p = readProfile(out); // renamed into place: never torn
                ASSERT_TRUE(p) << p.error().str();
                EXPECT_EQ(p->status, ProfileStatus::Checkpoint);
                checkpointed = p->total;
            }
            usleep(2000); // polling interval only: the condition is the sample count
        }
        kill(running.pid, SIGKILL);
        const RunResult result = waitProgram(running);
        ASSERT_EQ(result.signal, SIGKILL);
        ASSERT_GE(checkpointed, target) << "no checkpoint reached " << target << " samples";
        auto last = readProfile(out);
        ASSERT_TRUE(last) << last.error().str();
        auto everything = recoverLiveFile(findLiveFile(dir.path()));
        ASSERT_TRUE(everything) << everything.error().str();
        auto all = parseProfile(*everything, "live");
        ASSERT_TRUE(all) << all.error().str();
        ASSERT_GE(all->total, last->total);
        // One interval of 1 s at 2000 samples per CPU second, with slack for the check's own timing.
        EXPECT_LE(all->total - last->total, 2u * 2000u) << "the last checkpoint is older than one interval";
        // Only checkpoints were written over each other: no backups of this run's own snapshots.
        EXPECT_FALSE(fileExists(out + ".~1~"));
    }

    // The names of the threads of process `pid` (/proc/PID/task/TID/comm).
    std::vector<std::string> threadNames(int pid)
    {
        std::vector<std::string> names;
        std::error_code ec;
        for (const auto& task : std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/task", ec)) {
            std::string name = readFile(task.path().string() + "/comm");
            names.push_back(name.substr(0, name.find('\n')));
        }
        return names;
    }

    // Checkpoints are written by the collector's own thread, never in a signal handler of a program
    // thread: here the program's only thread sleeps with every signal blocked (no handler can run in
    // it, no sample arrives), and the checkpoints still come, each second.
    TEST(CheckpointTest, ACheckpointIsWrittenWhileTheOnlyProgramThreadSleepsWithEverySignalBlocked)
    {
        TempDir dir;
        const std::string out = dir.file("asleep.ppe");
        const Running running = startProgram(
            { PPE_LAUNCHER, "-o", out, PPE_ENDINGS, "masked-sleep", "0" }, { { "PPE_CHECKPOINT", "1" } });
        bool checkpointed = false;
        bool collectorThread = false;
        for (int polls = 0; polls < 1750 && !checkpointed; ++polls) { // 3.5 s of the 4 s sleep
            const std::vector<std::string> names = threadNames(running.pid);
            collectorThread = collectorThread || std::find(names.begin(), names.end(), "ppe-collector") != names.end();
            if (fileExists(out)) {
                auto p = readProfile(out);
                ASSERT_TRUE(p) << p.error().str();
                checkpointed = p->status == ProfileStatus::Checkpoint;
            }
            usleep(2000);
        }
        const RunResult result = waitProgram(running);
        EXPECT_TRUE(checkpointed) << "no checkpoint while the program slept\n" << result.err;
        EXPECT_TRUE(result.exited && result.status == 0) << result.err;
        EXPECT_TRUE(collectorThread) << "no thread named ppe-collector";
        auto last = readProfile(out);
        ASSERT_TRUE(last) << last.error().str();
        EXPECT_EQ(last->status, ProfileStatus::Complete);
        EXPECT_EQ(last->endReason, "exit");
    }

    // The collector thread never keeps the process alive: when main ends with pthread_exit, the last
    // program thread to end exits the process with status 0 as it does without the collector, and
    // the profile is written.
    TEST(CheckpointTest, TheCollectorThreadDoesNotOutliveTheProgram)
    {
        TempDir dir;
        const std::string out = dir.file("threads.ppe");
        const RunResult bare = runProgram({ PPE_ENDINGS, "pthread-exit", "1" }, { { "PPE_ON", "", true } });
        const RunResult profiled
            = runProgram({ PPE_LAUNCHER, "-o", out, PPE_ENDINGS, "pthread-exit", "1" }, { { "PPE_CHECKPOINT", "1" } });
        EXPECT_EQ(profiled.exited, bare.exited) << profiled.err;
        EXPECT_EQ(profiled.status, bare.status) << profiled.err;
        auto profile = readProfile(out);
        ASSERT_TRUE(profile) << profile.error().str() << "\n" << profiled.err;
        EXPECT_EQ(profile->status, ProfileStatus::Complete);
        EXPECT_EQ(profile->endReason, "exit");
        EXPECT_GT(profile->total, 0u);
    }

} // namespace
} // namespace ppe::testing

#include <sys/mount.h>

namespace ppe::testing {
namespace {

    // A full disk at the end: one clear message, the previous profile intact, no temporary file left,
    // the profile in the current directory instead, the program's exit status unchanged; and no
    // SIGBUS from a live file the disk cannot hold.
    TEST(DiskFullTest, ThePreviousProfileStaysAndTheStatusIsUnchanged)
    {
        TempDir dir;
        const std::string mnt = dir.file("full");
        std::filesystem::create_directory(mnt);
        if (mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=256k") != 0)
            GTEST_SKIP() << "cannot mount a small tmpfs here (" << std::strerror(errno) << "): needs root";
        struct Unmount {
            std::string path;
            ~Unmount() { umount(path.c_str()); }
        } unmount { mnt };
        const std::string previous = mnt + "/run.ppe";
        std::ofstream(previous) << "the previous profile\n";
        { // fill the rest of the filesystem
            std::ofstream filler(mnt + "/filler", std::ios::binary);
            const std::string block(4096, 'x');
            while (filler.write(block.data(), block.size()) && filler.flush()) { }
        }
        const RunResult bare = runProgram({ PPE_ENDINGS, "exit" }, { { "PPE_ON", "", true } });
        const RunResult full = runProgram({ PPE_LAUNCHER, "-o", previous, PPE_ENDINGS, "exit" }, {}, dir.path());
        EXPECT_TRUE(full.exited);
        EXPECT_EQ(full.status, bare.status) << full.err;
        EXPECT_EQ(readFile(previous), "the previous profile\n");
        // Nothing is lost: the profile goes to the current directory, saying why in one line.
        const std::string fallback = dir.file("run.ppe");
        EXPECT_NE(full.err.find("ppe: cannot write " + previous
                      + " (No space left on device): writing to the current directory as " + fallback),
            std::string::npos)
            << full.err;
        const auto written = readProfile(fallback);
        EXPECT_TRUE(written && written->status == ProfileStatus::Complete) << full.err;
        EXPECT_NE(full.err.find("ppe: no live file next to"), std::string::npos) << full.err;
        for (const auto& entry : std::filesystem::directory_iterator(mnt)) {
            const std::string name = entry.path().filename().string();
            EXPECT_TRUE(name == "run.ppe" || name == "filler") << "left behind: " << name;
        }
    }

} // namespace
} // namespace ppe::testing
