// ppe-arc-sim, the simulated ARC target (a STAND-IN, README.md) as a program: it prints its port,
// serves one connection, stops the running machine on SIGINT as qemu-arc does, and says what is
// wrong with its input in one line.
#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/session_start.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Program {
    pid_t pid = -1;
    FILE* out = nullptr;
    int status = -1;

    explicit Program(std::vector<std::string> args)
    {
        int pipes[2];
        if (::pipe(pipes) != 0)
            return;
        pid = ::fork();
        if (pid == 0) {
            ::dup2(pipes[1], 1);
            ::close(pipes[0]);
            std::vector<char*> argv;
            for (std::string& a : args)
                argv.push_back(a.data());
            argv.push_back(nullptr);
            ::execv(argv[0], argv.data());
            ::_exit(127);
        }
        ::close(pipes[1]);
        out = ::fdopen(pipes[0], "r");
    }
    std::string line()
    {
        char text[256] = {};
        return out && std::fgets(text, sizeof(text), out) ? std::string(text) : std::string();
    }
    int wait()
    {
        if (pid > 0 && ::waitpid(pid, &status, 0) == pid)
            pid = -1;
        return status;
    }
    ~Program()
    {
        if (pid > 0) {
            ::kill(pid, SIGKILL);
            wait();
        }
        if (out)
            std::fclose(out);
    }
};

TEST(SimProgram, ServesOneConnectionAndStopsOnSigint)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--personality", "qemu",
        "--slice-steps", "5" });
    const std::string port = sim.line();
    ASSERT_FALSE(port.empty());
    auto session
        = ppe::gdbremote::Session::connect("127.0.0.1:" + port.substr(0, port.size() - 1), std::chrono::seconds(3));
    ASSERT_TRUE(session) << session.error().str();
    ASSERT_TRUE(ppe::gdbremote::startSession(*session, true));
    ASSERT_TRUE(session->resume());
    ::kill(sim.pid, SIGINT); // as ppe-arc stops qemu-arc
    auto stop = session->waitForStop(std::chrono::seconds(5));
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_EQ(stop->code, 2);
    EXPECT_TRUE(session->detach());
    const int status = sim.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(SimProgram, BadInputIsOneLineNamingTheFile)
{
    Program sim({ PPE_ARC_SIM, "--elf", "/nonexistent/calls.arc", "--tree", PPE_ARC_SIM_TREE });
    const int status = sim.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
}

} // namespace
