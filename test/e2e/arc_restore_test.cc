// The undo journal end to end (issue 36): `ppe-arc poke` changes a real program under the real
// gdbserver — a register written, memory of its data and of its code written, a software
// breakpoint in its hot function — and is killed with SIGKILL while it holds them; `ppe-arc
// restore` then undoes the journal it left: the target's registers and memory equal the originals
// byte for byte, and the program runs to its normal end (loop.c writes "exit 42" to a file, and a
// breakpoint or a byte left in its code would kill it with SIGTRAP or worse).
#include "local_server.h"
#include "run_program.h"
#include "temp_dir.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace ppe::testing;

namespace {

// The address of `symbol` in `elf` (nm), "" when absent.
std::string symbolAddress(const std::string& elf, const std::string& symbol)
{
    RunResult r = runProgram({ "nm", elf });
    std::smatch m;
    const std::regex line("(?:^|\\n)0*([0-9a-f]+) [A-Za-z] " + symbol + "(?:\\n|$)");
    return std::regex_search(r.out, m, line) ? std::string(m[1]) : std::string();
}

// The "register NAME HEX" and "memory ADDR HEX" lines of a ppe-arc output, in order.
std::vector<std::string> stateLines(const std::string& text)
{
    std::vector<std::string> out;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("register ", 0) == 0 || line.rfind("memory ", 0) == 0)
            out.push_back(line);
    return out;
}

// Waits until `path` holds `text` (a deadline of `seconds`).
bool waitForText(const std::string& path, const std::string& text, double seconds)
{
    for (int i = 0; i < int(seconds * 100); ++i, ::usleep(10000))
        if (readFile(path).find(text) != std::string::npos)
            return true;
    return false;
}

// Waits until `running` has written "holding" (true) or has ended (false; it is left to reap).
bool waitForHolding(const Running& running, double seconds)
{
    for (int i = 0; i < int(seconds * 100); ++i, ::usleep(10000)) {
        if (readFile(running.outPath).find("holding") != std::string::npos)
            return true;
        siginfo_t info {};
        if (::waitid(P_PID, id_t(running.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid != 0)
            return readFile(running.outPath).find("holding") != std::string::npos;
    }
    return false;
}

// Ends a server the test started: it ends by itself after a detach; one nobody connected to (a
// failed run) is killed after a deadline, so that a failure cannot hang the test.
struct ServerGuard {
    Running& server;
    ~ServerGuard()
    {
        for (int i = 0; i < 500 && ::waitpid(server.pid, nullptr, WNOHANG) == 0; ++i)
            ::usleep(20000);
        ::kill(server.pid, SIGKILL);
        ::waitpid(server.pid, nullptr, 0);
    }
};

} // namespace

TEST(ArcRestore, AfterSigkillTheTargetIsAsBeforeAndRunsToItsEnd)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    const std::string loop = PPE_LOOP_NATIVE, sink = symbolAddress(loop, "sink"), work = symbolAddress(loop, "work");
    ASSERT_FALSE(sink.empty() || work.empty()) << "nm found no sink or work in " << loop;
    TempDir dir;
    const std::string port = std::to_string(freePort()), exitFile = dir.file("exit"), journal = dir.file("target.undo");
    // Not --once: after ppe-arc is killed gdbserver waits for the next connection, the program stopped.
    Running server = startProgram({ PPE_GDBSERVER, ":" + port, loop, "1500", exitFile });
    ServerGuard guard { server };
    const std::string remote = "127.0.0.1:" + port;
    std::ostringstream breakAt; // inside work(), beside the bytes written
    breakAt << std::hex << std::stoull(work, nullptr, 16) + 8;
    Running poke;
    RunResult ended; // a poke that ended before holding: the connection refused, or the error reported
    bool holding = false;
    for (int i = 0; i < 100 && !holding; ++i, ::usleep(50000)) { // gdbserver may still be starting
        poke = startProgram({ PPE_ARC, "poke", "--remote", remote, "--journal", journal, "--set", "r12=0x5a5a5a5a",
            "--write", sink + "=ffffffffffffffff", "--write", work + "=cccc", "--break", breakAt.str(), "--kind", "1",
            "--hold", "120" });
        holding = waitForHolding(poke, 60); // gdbserver starts the program first: slow under load
        if (!holding && (ended = waitProgram(poke)).err.find("refused") == std::string::npos)
            break;
    }
    ASSERT_TRUE(holding) << "ppe-arc poke: " << ended.out << ended.err << "(exit " << ended.status << ", signal "
                         << ended.signal << ")\ngdbserver: " << readFile(server.outPath) << readFile(server.errPath);
    ::kill(poke.pid, SIGKILL);
    RunResult killed = waitProgram(poke);
    EXPECT_EQ(killed.signal, SIGKILL);
    const std::vector<std::string> before = stateLines(killed.out);
    ASSERT_EQ(before.size(), 3u) << killed.out;
    ASSERT_TRUE(fileExists(journal)) << "no undo journal left behind";
    EXPECT_NE(readFile(journal).find("breakpoint "), std::string::npos) << readFile(journal);

    RunResult restored = runProgram({ PPE_ARC, "restore", "--journal", journal });
    EXPECT_EQ(restored.status, 0) << restored.err;
    EXPECT_EQ(stateLines(restored.out), before) << "before:\n" << killed.out << "after:\n" << restored.out;
    EXPECT_FALSE(fileExists(journal));
    EXPECT_TRUE(waitForText(exitFile, "exit 42", 20)) << "the program did not run to its end";
}

// A journal of an earlier run is never overwritten: poke refuses until it is restored.
TEST(ArcRestore, AJournalLeftBehindIsNotOverwritten)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    TempDir dir;
    const std::string journal = dir.file("left.undo"), text = "ppe-arc undo journal 1\nremote x:1\nmemory 10 00\n";
    {
        std::ofstream(journal) << text;
    }
    const std::string port = std::to_string(freePort()), sink = symbolAddress(PPE_LOOP_NATIVE, "sink");
    Running server = startProgram({ PPE_GDBSERVER, "--once", ":" + port, PPE_LOOP_NATIVE, "300" });
    ServerGuard guard { server };
    RunResult r;
    for (int i = 0; i < 100; ++i, ::usleep(50000)) {
        r = runProgram(
            { PPE_ARC, "poke", "--remote", "127.0.0.1:" + port, "--journal", journal, "--write", sink + "=01" });
        if (r.err.find("refused") == std::string::npos)
            break;
    }
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("an undo journal of an earlier run is here"), std::string::npos) << r.err;
    EXPECT_EQ(readFile(journal), text);
}
