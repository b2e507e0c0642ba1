// What the batch tests share: the one-node Slurm of test/slurm/cluster.sh (a CTest fixture), its
// jobs, the CPU time of a running job read from /proc (processCpuSeconds, from process_cpu.h), and
// the check that a profile's samples match that CPU time.
#pragma once

#include "process_cpu.h"
#include "run_program.h"

#include "ppe/profile/profile.h"

#include <string>
#include <vector>

namespace ppe::testing {

// Why the Slurm fixture is not there ("" when it is): its own reason (not root, no slurm-wlm), or
// that the tests were not run through ctest, which starts it.
std::string slurmSkipReason();

// Runs a Slurm command (srun, sbatch, scancel, scontrol) against the fixture's cluster.
RunResult runSlurm(std::vector<std::string> argv, const std::vector<EnvChange>& env = {});

// Submits `argv` as a batch job (sbatch --parsable with `options`, its output to `outputFile`) and
// returns the job id; "" (and a failure) when sbatch refuses it.
std::string submitJob(const std::vector<std::string>& options, const std::vector<std::string>& argv,
    const std::string& outputFile, const std::vector<EnvChange>& env = {});

// The job's state as scontrol shows it (RUNNING, COMPLETED, TIMEOUT, CANCELLED, FAILED,
// OUT_OF_MEMORY, ...), "" when it is unknown.
std::string jobState(const std::string& jobId);

// Waits until the job has ended (at most `seconds`), returning its last state.
std::string waitForJobEnd(const std::string& jobId, double seconds);

// The pid from the "working PID" line batch_job prints into `outputFile`, 0 when it has not
// appeared within `seconds` (or the job ended first).
int waitForWorking(const std::string& outputFile, double seconds);

// Polls a process's CPU time until it ends: the last reading is how much CPU it had used, at most
// one poll before its end.
class CpuWatch {
public:
    explicit CpuWatch(int pid)
        : m_pid(pid)
    {
    }
    // Reads it again; false once the process has gone.
    bool poll();
    double lastSeconds() const { return m_last; }

private:
    int m_pid;
    double m_last = 0;
};

// The kernel's tick rate, CONFIG_HZ, from /boot/config-RELEASE or /proc/config.gz; 0 where neither
// can be read. (Not sysconf(_SC_CLK_TCK): that is USER_HZ, 100 whatever the tick.)
int kernelTickHz();

// The profile's samples stand for `cpuSeconds` of CPU time, the time its process used as read from
// /proc (within `slackSeconds` more or less: the interval between the last reading and the end, or
// a checkpoint's age): its own CPU time agrees, and so does its sample count at the rate its
// mechanism can take: the asked rate of user CPU time for perf-ring and perf-task-clock (within
// 10 %), for itimer-prof min(asked rate, CONFIG_HZ) of all CPU time taken (within 15 %; where
// CONFIG_HZ is unknown, at least min(asked rate, 100) and at most the asked rate), each standing
// for its thread's CPU time since its last (expectTickLimitedSamples).
void expectSamplesMatchCpu(const Profile& profile, double cpuSeconds, double slackSeconds);

// The itimer-prof rule of expectSamplesMatchCpu with the tick rate `hz` (0: unknown): the kernel
// fires ITIMER_PROF only on the scheduler tick, so the samples taken (its ticks) are at most
// CONFIG_HZ a CPU second; where the tick is unknown, only a floor (every kernel ticks at least 100
// times a second) and a ceiling (the asked rate). It holds for a process with one busy thread, as
// batch_job is: the process timer fires at most once a tick of wall time, so two busy threads get
// about half of it a CPU second. Each sample stands for its thread's CPU time since its last, so
// the count (a profile with ticks) is the asked rate of the CPU time, within 10 %.
void expectTickLimitedSamples(const Profile& profile, double cpuSeconds, double slackSeconds, int hz);

} // namespace ppe::testing
