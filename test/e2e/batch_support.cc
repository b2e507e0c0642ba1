#include "batch_support.h"
#include "profile_hits.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/utsname.h>
#include <thread>
#include <unistd.h>

namespace ppe::testing {

namespace {

    const std::string kConf = std::string(PPE_SLURM_DIR) + "/slurm.conf";

    void pause() { std::this_thread::sleep_for(std::chrono::milliseconds(100)); }

    bool ended(const std::string& state)
    {
        for (const char* s : { "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "OUT_OF_MEMORY", "NODE_FAIL", "PREEMPTED",
                 "BOOT_FAIL", "DEADLINE" }) {
            if (state == s)
                return true;
        }
        return false;
    }

} // namespace

std::string slurmSkipReason()
{
    const std::string skip = readFile(std::string(PPE_SLURM_DIR) + "/skip");
    if (!skip.empty())
        return "the one-node Slurm did not start: " + skip;
    if (!fileExists(kConf))
        return "the one-node Slurm is not running (ctest starts it as the fixture slurm_cluster; by hand: "
               "test/slurm/cluster.sh start " PPE_SLURM_DIR ")";
    return "";
}

RunResult runSlurm(std::vector<std::string> argv, const std::vector<EnvChange>& env)
{
    std::vector<EnvChange> all = env;
    all.push_back({ "SLURM_CONF", kConf });
    return runProgram(argv, all);
}

std::string submitJob(const std::vector<std::string>& options, const std::vector<std::string>& argv,
    const std::string& outputFile, const std::vector<EnvChange>& env)
{
    std::vector<std::string> command { "sbatch", "--parsable", "-o", outputFile };
    command.insert(command.end(), options.begin(), options.end());
    std::string wrapped = "exec";
    for (const std::string& a : argv)
        wrapped += " '" + a + "'";
    command.push_back("--wrap=" + wrapped);
    const RunResult r = runSlurm(command, env);
    EXPECT_TRUE(r.exited && r.status == 0) << "sbatch refused the job: " << r.err;
    if (!r.exited || r.status != 0)
        return "";
    return r.out.substr(0, r.out.find_first_of(";\n"));
}

std::string jobState(const std::string& jobId)
{
    const RunResult r = runSlurm({ "scontrol", "show", "job", "-o", jobId });
    const size_t at = r.out.find("JobState=");
    if (at == std::string::npos)
        return "";
    const size_t start = at + 9;
    return r.out.substr(start, r.out.find(' ', start) - start);
}

std::string waitForJobEnd(const std::string& jobId, double seconds)
{
    std::string state;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        state = jobState(jobId);
        if (ended(state))
            return state;
        pause();
    }
    return state;
}

int waitForWorking(const std::string& outputFile, double seconds)
{
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        std::istringstream lines(readFile(outputFile));
        std::string word;
        int pid = 0;
        while (lines >> word) {
            if (word == "working" && lines >> pid)
                return pid;
        }
        pause();
    }
    return 0;
}

bool CpuWatch::poll()
{
    const double now = processCpuSeconds(m_pid);
    if (now < 0)
        return false;
    m_last = now;
    return true;
}

namespace {

    int readKernelTickHz()
    {
        struct utsname u { };
        std::string config = uname(&u) == 0 ? readFile(std::string("/boot/config-") + u.release) : "";
        if (config.empty() && fileExists("/proc/config.gz")) {
            const RunResult r = runProgram({ "gzip", "-dc", "/proc/config.gz" });
            if (r.exited && r.status == 0)
                config = r.out;
        }
        std::smatch m;
        return std::regex_search(config, m, std::regex(R"((^|\n)CONFIG_HZ=(\d+))")) ? std::stoi(m[2].str()) : 0;
    }

} // namespace

int kernelTickHz()
{
    static const int hz = readKernelTickHz();
    return hz;
}

namespace {

    // perf-ring and perf-task-clock: samples at the asked rate of user CPU time (their events exclude
    // the kernel; the collector and formatter expect samples from the user share too).
    void expectAskedRate(const Profile& profile, double cpuSeconds, double slackSeconds)
    {
        const double profiled = profile.cpuUser + profile.cpuSystem;
        const double rate = profile.requestedRate;
        const double expected = cpuSeconds * (profiled > 0 ? profile.cpuUser / profiled : 1.0) * rate;
        EXPECT_NEAR(double(profile.total), expected, slackSeconds * rate + 0.1 * expected)
            << profile.mechanism << " at " << rate << " Hz over " << cpuSeconds << " s of CPU";
    }

} // namespace

void expectTickLimitedSamples(const Profile& profile, double cpuSeconds, double slackSeconds, int hz)
{
    const double taken = double(samplesTaken(profile.mechanism.kind(), profile.ticks, profile.total));
    const double asked = profile.requestedRate;
    const double rate = std::min(asked, double(hz > 0 ? hz : 100));
    const double expected = cpuSeconds * rate;
    // At most one sample a tick, and only at a tick that finds a thread of the process current:
    // where several processes share a core in short slices, or a virtual machine's vCPU loses
    // ticks to its host (steal time) while its CPU time still counts, fewer. srun's four tasks on
    // this loaded 2-core VM took 72 % of the ticks' worth (270 of 375). Above: 15 %.
    const double tolerance = slackSeconds * rate + 0.15 * expected;
    const double shortfall = slackSeconds * rate + 0.35 * expected;
    std::ostringstream what;
    what << profile.mechanism << " asked " << asked << " Hz, CONFIG_HZ " << (hz > 0 ? std::to_string(hz) : "unknown")
         << ", over " << cpuSeconds << " s of CPU";
    if (hz > 0) {
        EXPECT_GE(taken, expected - shortfall) << what.str();
        EXPECT_LE(taken, expected + tolerance) << what.str();
    } else {
        EXPECT_GE(taken, expected - shortfall) << what.str();
        EXPECT_LE(taken, cpuSeconds * asked * 1.15 + slackSeconds * asked) << what.str();
    }
    // Each sample stands for its thread's CPU time since its last (threads.h): the count is the
    // asked rate of all the CPU time, but for each thread's last part of a tick.
    if (profile.ticks > 0) {
        EXPECT_NEAR(double(profile.total), cpuSeconds * asked, slackSeconds * asked + 0.1 * cpuSeconds * asked)
            << what.str() << ": the weighted count";
    }
}

void expectSamplesMatchCpu(const Profile& profile, double cpuSeconds, double slackSeconds)
{
    const double profiled = profile.cpuUser + profile.cpuSystem;
    EXPECT_NEAR(profiled, cpuSeconds, slackSeconds + 0.1 * cpuSeconds)
        << "the profile's CPU time is not the process's as /proc showed it";
    if (takesAskedRate(profile))
        expectAskedRate(profile, cpuSeconds, slackSeconds);
    else if (profile.mechanism == "itimer-prof")
        expectTickLimitedSamples(profile, cpuSeconds, slackSeconds, kernelTickHz());
    else
        ADD_FAILURE() << "no rule for the samples of mechanism '" << profile.mechanism << "'";
}

} // namespace ppe::testing
