// ppe-arc and threads, end to end: examples/threads.cc (four workers doing 1, 2, 3 and 4 units of
// the same work, each in its own function) run by the real gdbserver, sampled by the real ppe-arc
// in non-stop mode (a sample stops one thread, round-robin) and in all-stop mode (every thread's
// PC at each stop), formatted by the real ppeout: every worker is sampled, and the workers with
// more work have more samples (worker<4> more than worker<1> by 3 standard errors of the
// difference; worker<3> + worker<4> more than worker<1> + worker<2>). The .ppe says the mode; the
// non-stop run's stopped ÷ wall figure is printed and recorded as a test property.
#include "local_server.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <array>
#include <cmath>
#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

using namespace ppe::testing;

namespace {

constexpr uint64_t kEnough = 300; // samples in the four workers before shares are judged

// Hits of worker<1> .. worker<4> in a `ppeout --by function` report.
std::array<uint64_t, 4> workerHits(const std::string& report)
{
    std::array<uint64_t, 4> hits {};
    static const std::regex row(R"(^ *\d+ - .*worker<(\d)>.*?\d+\.\d+ +\d+\.\d+ +(\d+) +[0-9A-F]+ +\d+ *$)");
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, row) && m[1].str()[0] >= '1' && m[1].str()[0] <= '4')
            hits[size_t(m[1].str()[0] - '1')] = std::stoull(m[2]);
    }
    return hits;
}

uint64_t sum(const std::array<uint64_t, 4>& hits) { return hits[0] + hits[1] + hits[2] + hits[3]; }

struct ThreadsRun {
    std::array<uint64_t, 4> hits {};
    std::string report, mode, err;
    double stoppedRatio = 0;
};

// threads UNITS under gdbserver, sampled at 2 ms in `mode`; UNITS doubled until enough samples.
ThreadsRun sampleThreads(const std::string& mode)
{
    TempDir dir;
    ThreadsRun run;
    for (int attempt = 0, units = 100; attempt < 3; ++attempt, units *= 2) {
        const std::string port = std::to_string(freePort()), out = dir.file("threads.ppe");
        RunResult r = runProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", PPE_THREADS, "-o", out,
            "--interval", "2", "--mode", mode, "--spawn",
            std::string(PPE_GDBSERVER) + " --once :" + port + " " + PPE_THREADS + " " + std::to_string(units) });
        run.err = r.err;
        EXPECT_TRUE(r.exited && r.status == 0) << r.err;
        auto profile = ppe::readProfile(out);
        if (!profile) {
            ADD_FAILURE() << profile.error().str();
            return run;
        }
        EXPECT_EQ(profile->endReason, "exit") << r.err;
        run.mode = profile->remoteMode;
        run.stoppedRatio = profile->stoppedRatio;
        RunResult formatted = runProgram({ PPEOUT, "--by", "function", out, "-" });
        EXPECT_TRUE(formatted.exited && formatted.status == 0) << formatted.err;
        run.report = formatted.out;
        run.hits = workerHits(run.report);
        if (sum(run.hits) >= kEnough)
            break;
    }
    std::cout << run.err << run.report.substr(0, run.report.find("Program text"));
    return run;
}

void expectSharesGrowWithWork(const std::array<uint64_t, 4>& hits)
{
    const double n = double(sum(hits));
    ASSERT_GE(n, double(kEnough));
    for (size_t w = 0; w < 4; ++w)
        EXPECT_GT(hits[w], 0u) << "worker<" << w + 1 << "> was not sampled";
    const double p1 = double(hits[0]) / n, p4 = double(hits[3]) / n;
    // The standard error of the difference of two shares of one multinomial sample.
    const double se = std::sqrt((p1 + p4 - (p4 - p1) * (p4 - p1)) / n);
    EXPECT_GT(p4 - p1, 3 * se) << "worker<4> " << hits[3] << " vs worker<1> " << hits[0] << " of " << n;
    EXPECT_GT(hits[2] + hits[3], hits[0] + hits[1]);
}

bool haveGdbserver() { return executable(PPE_GDBSERVER); }

// The state letter of /proc/PID/stat: R, S, ... or t/T when stopped (traced or by a signal).
char processState(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const size_t paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
}

size_t taskCount(pid_t pid)
{
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(status, line);)
        if (line.rfind("Threads:", 0) == 0)
            return std::stoul(line.substr(8));
    return 0;
}

} // namespace

TEST(ArcThreads, NonStopStopsOneThreadAtATimeThroughGdbserver)
{
    if (!haveGdbserver())
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    ThreadsRun run = sampleThreads("non-stop");
    EXPECT_NE(run.mode.find("non-stop"), std::string::npos) << run.mode;
    EXPECT_NE(run.err.find("non-stop mode (QNonStop:1)"), std::string::npos) << run.err;
    expectSharesGrowWithWork(run.hits);
    EXPECT_GT(run.stoppedRatio, 0.0);
    EXPECT_LT(run.stoppedRatio, 1.0);
    std::cout << "non-stop: a thread stopped " << run.stoppedRatio * 100 << " % of the wall time\n";
    RecordProperty("non_stop_stopped_per_wall", std::to_string(run.stoppedRatio));
}

TEST(ArcThreads, AutoChoosesNonStopWhereGdbserverOffersIt)
{
    if (!haveGdbserver())
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    TempDir dir;
    const std::string port = std::to_string(freePort()), out = dir.file("auto.ppe");
    RunResult r = runProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", PPE_THREADS, "-o", out,
        "--spawn", std::string(PPE_GDBSERVER) + " --once :" + port + " " + PPE_THREADS + " 20" });
    EXPECT_TRUE(r.exited && r.status == 0) << r.err;
    auto profile = ppe::readProfile(out);
    ASSERT_TRUE(profile.ok()) << profile.error().str();
    EXPECT_NE(profile->remoteMode.find("non-stop"), std::string::npos) << profile->remoteMode;
}

TEST(ArcThreads, AllStopReadsEveryThreadThroughGdbserver)
{
    if (!haveGdbserver())
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    ThreadsRun run = sampleThreads("all-stop");
    EXPECT_NE(run.mode.find("all-stop: every thread"), std::string::npos) << run.mode;
    expectSharesGrowWithWork(run.hits);
    // One stop, many PCs: more samples than stops.
    std::smatch m;
    ASSERT_TRUE(std::regex_search(run.err, m, std::regex(R"((\d+) samples from (\d+) stops)"))) << run.err;
    EXPECT_GT(std::stoull(m[1]), std::stoull(m[2]));
}

// A multi-threaded job already running, in the test's process group (not its leader: gdbserver's
// SIGINT to the group cannot stop it in all-stop mode), attached by gdbserver: non-stop mode stops
// one thread at a time (tgkill), every worker is sampled, and after the detach the job runs on.
TEST(ArcThreads, NonStopAttachedToARunningJob)
{
    if (!haveGdbserver())
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    std::string program = PPE_THREADS, units = "100000";
    char* argv[] = { program.data(), units.data(), nullptr };
    pid_t job = -1;
    ASSERT_EQ(posix_spawn(&job, argv[0], nullptr, nullptr, argv, environ), 0);
    for (int i = 0; i < 500 && taskCount(job) < 5; ++i)
        ::usleep(10000);
    ASSERT_EQ(taskCount(job), 5u) << "the workers did not start";
    TempDir dir;
    const std::string port = std::to_string(freePort()), out = dir.file("attached.ppe");
    RunResult r = runProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", PPE_THREADS, "-o", out,
        "--interval", "2", "--duration", "1", "--spawn",
        std::string(PPE_GDBSERVER) + " --attach :" + port + " " + std::to_string(job) });
    EXPECT_TRUE(r.exited && r.status == 0) << r.err;
    for (int i = 0; i < 200 && (processState(job) == 't' || processState(job) == 'T'); ++i)
        ::usleep(10000);
    EXPECT_NE(processState(job), 't');
    EXPECT_NE(processState(job), 'T');
    EXPECT_EQ(::waitpid(job, nullptr, WNOHANG), 0) << "the job ended";
    ::kill(job, SIGKILL);
    ::waitpid(job, nullptr, 0);
    auto profile = ppe::readProfile(out);
    ASSERT_TRUE(profile.ok()) << profile.error().str();
    EXPECT_EQ(profile->endReason, "duration");
    EXPECT_EQ(profile->pid, uint64_t(job));
    EXPECT_NE(profile->remoteMode.find("non-stop"), std::string::npos) << profile->remoteMode;
    RunResult formatted = runProgram({ PPEOUT, "--by", "function", out, "-" });
    const std::array<uint64_t, 4> hits = workerHits(formatted.out);
    for (size_t w = 0; w < 4; ++w)
        EXPECT_GT(hits[w], 0u) << "worker<" << w + 1 << "> was not sampled\n" << r.err << formatted.out;
}

TEST(ArcThreads, ModeAndThreadsMistakesAreOneLineErrors)
{
    for (auto [option, value, message] :
        { std::tuple { "--mode", "sideways", "--mode sideways: not all-stop, non-stop, running or auto" },
            std::tuple { "--threads", "some", "--threads some: not all or stopped" } }) {
        RunResult r = runProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:1", "--elf", PPE_THREADS, option, value });
        EXPECT_TRUE(r.exited && r.status == 1) << r.err;
        EXPECT_EQ(r.err, std::string("ppe-arc: error: ") + message + "\n");
    }
    RunResult help = runProgram({ PPE_ARC, "--help" });
    EXPECT_NE(help.out.find("--mode all-stop|non-stop|running|auto"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--threads all|stopped"), std::string::npos) << help.out;
}
