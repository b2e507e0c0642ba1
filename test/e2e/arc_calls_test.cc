// Call counts by breakpoints (ppe-arc calls, issue 37) through real servers: the real ARC program
// arc_calls.c under qemu-arc, and its native build under gdbserver (x86-64, whose stop leaves the PC
// past the int3). The counts equal what the program counted itself, recursion is counted by depth,
// the program's output is what it is without ppe-arc, and no journal is left behind. Then
// ppe-arc killed while it counts: `ppe-arc restore` removes its breakpoints and the program runs to
// its end with the right output.
#include "arc_session.h"
#include "temp_dir.h"

#include <csignal>
#include <gtest/gtest.h>
#include <regex>
#include <sys/wait.h>
#include <unistd.h>

using namespace ppe::testing;

namespace {

// "calls fib N twice N leaf N" from the program's output: name -> count.
std::map<std::string, uint64_t> programCounts(const std::string& output)
{
    std::map<std::string, uint64_t> counts;
    std::smatch m;
    if (std::regex_search(output, m, std::regex("calls fib (\\d+) twice (\\d+) leaf (\\d+)"))) {
        counts["fib"] = std::stoull(m[1]);
        counts["twice"] = std::stoull(m[2]);
        counts["leaf"] = std::stoull(m[3]);
    }
    return counts;
}

// The table ppe-arc calls printed: name -> {calls, outermost, returned, depth}.
std::map<std::string, std::vector<uint64_t>> tableOf(const std::string& output)
{
    std::map<std::string, std::vector<uint64_t>> rows;
    std::istringstream lines(output);
    std::smatch m;
    for (std::string line; std::getline(lines, line);) {
        if (std::regex_match(line, m, std::regex("(\\w+) +(\\d+) +(\\d+) +(\\d+) +(\\d+)")))
            rows[m[1]] = { std::stoull(m[2]), std::stoull(m[3]), std::stoull(m[4]), std::stoull(m[5]) };
    }
    return rows;
}

// Runs ppe-arc calls against a server `start` starts on a port (retrying while it is not yet
// listening); returns its result and the server's.
std::pair<RunResult, RunResult> countWith(
    const std::function<Running(const std::string& port)>& start, const std::string& elf, const std::string& journal)
{
    RunResult calls;
    for (int attempt = 0; attempt < 50; ++attempt, ::usleep(100000)) {
        const std::string port = std::to_string(freePort());
        Running server = start(port);
        for (int i = 0; i < 100; ++i, ::usleep(50000)) { // the server may still be starting
            calls = runProgram({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + port, "--elf", elf, "--function",
                "fib,twice,leaf", "--journal", journal });
            if (calls.err.find("refused") == std::string::npos)
                break;
        }
        if (calls.err.find("refused") != std::string::npos)
            ::kill(server.pid, SIGKILL);
        RunResult served = waitProgram(server);
        if (calls.err.find("refused") == std::string::npos)
            return { calls, served };
    }
    return { calls, RunResult {} };
}

void checkCounts(
    const RunResult& calls, const std::string& programOutput, const std::string& bare, int n, uint64_t threads = 1)
{
    ASSERT_EQ(calls.status, 0) << calls.out << calls.err;
    EXPECT_EQ(programOutput, bare) << "the program's output changed under breakpoints";
    const auto truth = programCounts(bare);
    ASSERT_EQ(truth.size(), 3u) << bare;
    const auto table = tableOf(calls.out);
    for (const auto& [name, count] : truth) {
        ASSERT_TRUE(table.count(name)) << calls.out;
        EXPECT_EQ(table.at(name)[0], count) << name << "\n" << calls.out;
        EXPECT_EQ(table.at(name)[2], table.at(name)[1]) << name << ": every outermost call returned";
    }
    EXPECT_EQ(table.at("fib")[1], threads) << "fib is entered once from outside itself in each thread";
    EXPECT_EQ(table.at("fib")[3], uint64_t(n)) << "fib(n) recurses n deep, in each thread apart";
    EXPECT_EQ(table.at("twice")[1], table.at("twice")[0]) << "twice never recurses";
}

} // namespace

TEST(ArcCalls, QemuArcCountsEveryCallAndChangesNothing)
{
    if (!executable(PPE_QEMU_ARC) || std::string(PPE_CALLS_ARC).empty())
        GTEST_SKIP() << "qemu-arc (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH) or arc-linux-gnu-gcc-12 is absent";
    TempDir dir;
    const RunResult bare = runProgram({ PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", PPE_CALLS_ARC, "12", "40" });
    ASSERT_EQ(bare.status, 0) << bare.err;
    const std::string journal = dir.file("calls.undo");
    auto [calls, served] = countWith(
        [](const std::string& port) {
            return startProgram({ PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", "-g", port, PPE_CALLS_ARC, "12", "40" });
        },
        PPE_CALLS_ARC, journal);
    checkCounts(calls, served.out, bare.out, 12);
    EXPECT_FALSE(fileExists(journal)) << readFile(journal);
}

TEST(ArcCalls, GdbserverCountsEveryCallAndChangesNothing)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    TempDir dir;
    const RunResult bare = runProgram({ PPE_CALLS_NATIVE, "12", "40" });
    ASSERT_EQ(bare.status, 0) << bare.err;
    const std::string journal = dir.file("calls.undo");
    auto [calls, served] = countWith(
        [](const std::string& port) {
            return startProgram({ PPE_GDBSERVER, "--once", ":" + port, PPE_CALLS_NATIVE, "12", "40" });
        },
        PPE_CALLS_NATIVE, journal);
    checkCounts(calls, served.out, bare.out, 12);
    EXPECT_FALSE(fileExists(journal)) << readFile(journal);
}

// Four threads at once, each running fib(10) and the twice loop: every stop is counted for the thread
// that made it, so each thread's recursion is 10 deep and its outermost call its own (one thread's
// returns matched with another's calls would give a depth above 10, or calls left unreturned).
TEST(ArcCalls, GdbserverCountsEachThreadsCallsApart)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    TempDir dir;
    const RunResult bare = runProgram({ PPE_CALLS_NATIVE, "10", "30", "4" });
    ASSERT_EQ(bare.status, 0) << bare.err;
    const std::string journal = dir.file("threads.undo");
    auto [calls, served] = countWith(
        [](const std::string& port) {
            return startProgram({ PPE_GDBSERVER, "--once", ":" + port, PPE_CALLS_NATIVE, "10", "30", "4" });
        },
        PPE_CALLS_NATIVE, journal);
    checkCounts(calls, served.out, bare.out, 10, 4);
    EXPECT_FALSE(fileExists(journal)) << readFile(journal);
}

// The same four threads under qemu-arc, whose stub (QEMU's user-mode one) stops only the thread that
// hit a breakpoint: the others run on past breakpoints that are out for a step, and their stops
// come mixed with the replies. ppe-arc refuses a program that calls pthread_create there, before
// any breakpoint, rather than print wrong counts, and the program runs on to its own output.
TEST(ArcCalls, QemuArcRefusesToCountAThreadedProgram)
{
    if (!executable(PPE_QEMU_ARC) || std::string(PPE_CALLS_THREADS_ARC).empty())
        GTEST_SKIP() << "qemu-arc (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH) or arc-linux-gnu-gcc-12 is absent";
    TempDir dir;
    const std::vector<std::string> program = { PPE_CALLS_THREADS_ARC, "10", "30", "4" };
    const RunResult bare = aloneUnderQemu(program);
    ASSERT_EQ(bare.status, 0) << bare.err;
    const std::string journal = dir.file("threads.undo");
    auto [calls, served] = countWith(
        [&](const std::string& port) {
            std::vector<std::string> server = { PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", "-g", port };
            server.insert(server.end(), program.begin(), program.end());
            return startProgram(server);
        },
        PPE_CALLS_THREADS_ARC, journal);
    EXPECT_EQ(calls.status, 1) << calls.out << calls.err;
    EXPECT_TRUE(std::regex_search(calls.err,
        std::regex("error: .*calls_threads.arc can start threads \\(it calls pthread_create\\).*count it under "
                   "gdbserver")))
        << calls.err;
    EXPECT_EQ(served.out, bare.out) << "the refused program did not run on as it would";
    EXPECT_FALSE(fileExists(journal)) << readFile(journal);
}

// ppe-arc killed while it counts, its breakpoints in the program: gdbserver (without --once) holds
// the program stopped for the next connection, `ppe-arc restore` takes the breakpoints out (and a
// PC left after an int3 back), and the program runs to its end with the output of a run without
// ppe-arc. Killed at several points, since a kill may come between a stop and the PC's repair.
TEST(ArcCalls, AfterSigkillRestoreLetsTheProgramEndAsItWould)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    const RunResult bare = runProgram({ PPE_CALLS_NATIVE, "22", "1000" });
    ASSERT_EQ(bare.status, 0) << bare.err;
    for (int delayMs : { 150, 400, 900 }) {
        SCOPED_TRACE("killed after " + std::to_string(delayMs) + " ms");
        TempDir dir;
        const std::string journal = dir.file("calls.undo"), port = std::to_string(freePort());
        Running server = startProgram({ PPE_GDBSERVER, ":" + port, PPE_CALLS_NATIVE, "22", "1000" });
        Running calls;
        bool counting = false;
        for (int i = 0; i < 200 && !counting; ++i) { // gdbserver may still be starting
            calls = startProgram({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + port, "--elf", PPE_CALLS_NATIVE,
                "--function", "fib,twice,leaf", "--journal", journal });
            for (int k = 0; k < 500 && !counting; ++k, ::usleep(10000)) {
                counting = fileExists(journal);
                if (::waitpid(calls.pid, nullptr, WNOHANG) == calls.pid)
                    break;
            }
        }
        ASSERT_TRUE(counting) << "ppe-arc calls never journalled a breakpoint: " << readFile(calls.errPath);
        ::usleep(useconds_t(delayMs) * 1000);
        ::kill(calls.pid, SIGKILL);
        waitProgram(calls);
        ASSERT_TRUE(fileExists(journal)) << "no journal left by the killed ppe-arc";
        RunResult restored = runProgram({ PPE_ARC, "restore", "--journal", journal });
        EXPECT_EQ(restored.status, 0) << restored.out << restored.err;
        EXPECT_FALSE(fileExists(journal));
        RunResult served = waitProgram(server);
        EXPECT_EQ(served.out, bare.out) << served.err;
    }
}
