// Runs a real program the way a user's shell would, with extra environment variables, and
// collects what it printed and how it ended.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ppe::testing {

struct RunResult {
    bool exited = false; // normal exit (then `status`), else killed by `signal`
    int status = -1;
    int signal = 0;
    bool coreDumped = false;
    std::string out; // stdout
    std::string err; // stderr
    double cpuSeconds = 0; // user + system CPU time of the process
};

// Environment changes: a value sets the variable, std::nullopt-like "" with unset=true removes it.
struct EnvChange {
    std::string name;
    std::string value;
    bool unset = false;
};

// Runs argv[0] (searched in PATH if it has no '/') in `cwd` with the current environment plus
// `env`; fails the calling test if it cannot be started.
RunResult runProgram(
    const std::vector<std::string>& argv, const std::vector<EnvChange>& env = {}, const std::string& cwd = "");

// Starts a program as runProgram does, without waiting; finish it with waitProgram.
struct Running {
    int pid = -1;
    std::string outPath, errPath;
};
Running startProgram(
    const std::vector<std::string>& argv, const std::vector<EnvChange>& env = {}, const std::string& cwd = "");
RunResult waitProgram(const Running& running);

std::string readFile(const std::string& path);
bool fileExists(const std::string& path);

// True when the shell finds `name` (a tool a test reads its output with, or skips without).
bool haveTool(const std::string& name);

// True when this process may open a perf task-clock event for itself, as the collector's CPU-time
// mechanism does; false where perf_event_open is refused (containers, perf_event_paranoid 3, the
// suite run under test/support/deny_perf_events). Tests that need the mechanism skip otherwise.
bool perfEventsAvailable();

// True when this process may also open a task-clock event bound to a CPU and map its ring buffer,
// as perf-ring does; false where those are refused (deny_perf_events --per-cpu, a locked-memory
// limit), where the collector falls back to perf-task-clock.
bool perfRingsAvailable();

} // namespace ppe::testing
