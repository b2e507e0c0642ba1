#include "run_program.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <linux/perf_event.h>
#include <spawn.h>
#include <sstream>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace ppe::testing {

namespace {

    std::vector<std::string> buildEnvironment(const std::vector<EnvChange>& changes)
    {
        std::vector<std::string> env;
        for (char** e = environ; *e; ++e) {
            const std::string entry = *e;
            const std::string name = entry.substr(0, entry.find('='));
            bool replaced = false;
            for (const EnvChange& c : changes)
                replaced |= c.name == name;
            if (!replaced)
                env.push_back(entry);
        }
        for (const EnvChange& c : changes) {
            if (!c.unset)
                env.push_back(c.name + "=" + c.value);
        }
        return env;
    }

    std::vector<char*> pointers(std::vector<std::string>& strings)
    {
        std::vector<char*> out;
        for (std::string& s : strings)
            out.push_back(s.data());
        out.push_back(nullptr);
        return out;
    }

    std::string tempCapture()
    {
        char path[] = "/tmp/ppe-run-XXXXXX";
        const int fd = mkstemp(path);
        close(fd);
        return path;
    }

} // namespace

std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

bool fileExists(const std::string& path)
{
    struct stat st;
    return lstat(path.c_str(), &st) == 0;
}

Running startProgram(const std::vector<std::string>& argv, const std::vector<EnvChange>& env, const std::string& cwd)
{
    Running running;
    std::vector<std::string> args = argv;
    std::vector<std::string> envStrings = buildEnvironment(env);
    std::vector<char*> argp = pointers(args);
    std::vector<char*> envp = pointers(envStrings);
    const std::string outPath = tempCapture();
    const std::string errPath = tempCapture();
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, outPath.c_str(), O_WRONLY | O_TRUNC, 0);
    posix_spawn_file_actions_addopen(&actions, 2, errPath.c_str(), O_WRONLY | O_TRUNC, 0);
    if (!cwd.empty())
        posix_spawn_file_actions_addchdir_np(&actions, cwd.c_str());
    pid_t pid = 0;
    const int error = posix_spawnp(&pid, argp[0], &actions, nullptr, argp.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (error) {
        ADD_FAILURE() << "cannot start " << argv[0] << ": " << std::strerror(error);
        return running;
    }
    running.pid = pid;
    running.outPath = outPath;
    running.errPath = errPath;
    return running;
}

RunResult waitProgram(const Running& running)
{
    RunResult result;
    if (running.pid < 0)
        return result;
    int status = 0;
    struct rusage usage { };
    while (wait4(running.pid, &status, 0, &usage) < 0 && errno == EINTR) { }
    result.cpuSeconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    const std::string& outPath = running.outPath;
    const std::string& errPath = running.errPath;
    result.exited = WIFEXITED(status);
    result.status = result.exited ? WEXITSTATUS(status) : -1;
    result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    result.coreDumped = WIFSIGNALED(status) && WCOREDUMP(status);
    result.out = readFile(outPath);
    result.err = readFile(errPath);
    unlink(outPath.c_str());
    unlink(errPath.c_str());
    return result;
}

RunResult runProgram(const std::vector<std::string>& argv, const std::vector<EnvChange>& env, const std::string& cwd)
{
    return waitProgram(startProgram(argv, env, cwd));
}

// A disabled task-clock event of this process, on every CPU (cpu -1) or on one; -1 if refused.
static int openTaskClock(int cpu)
{
    perf_event_attr attr {};
    attr.size = sizeof attr;
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.exclude_kernel = 1;
    attr.disabled = 1;
    attr.sample_period = 1'000'000;
    attr.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
    return int(syscall(SYS_perf_event_open, &attr, 0, cpu, -1, PERF_FLAG_FD_CLOEXEC));
}

bool perfEventsAvailable()
{
    const int fd = openTaskClock(-1);
    if (fd < 0)
        return false;
    close(fd);
    return true;
}

bool perfRingsAvailable()
{
    const int fd = openTaskClock(0);
    if (fd < 0)
        return false;
    const size_t bytes = 2 * size_t(sysconf(_SC_PAGESIZE)); // the header page and one of data
    void* ring = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (ring == MAP_FAILED)
        return false;
    munmap(ring, bytes);
    return true;
}

bool haveTool(const std::string& name) { return runProgram({ "sh", "-c", "command -v " + name }).status == 0; }

} // namespace ppe::testing
