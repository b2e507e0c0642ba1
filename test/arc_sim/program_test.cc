// ppe-arc-sim, the simulated ARC target (a STAND-IN, README.md) as a program: it prints its port,
// serves one connection, stops the running machine on SIGINT as qemu-arc does, and says what is
// wrong with its input in one line.
#include "local_server.h"
#include "sim_target.h"

#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/session_start.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <regex>
#include <sstream>
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
    std::string rest()
    {
        std::string all, one;
        while (!(one = line()).empty())
            all += one;
        return all;
    }
    std::string line()
    {
        char text[1024] = {};
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
    ASSERT_GT(sim.pid, 0);
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

// The number in `table`'s row for `name`, column `column` (0: the first number).
uint64_t cell(const std::string& table, const std::string& name, int column)
{
    std::istringstream in(table);
    for (std::string row; std::getline(in, row);) {
        std::istringstream words(row);
        std::string first;
        uint64_t value = 0;
        if (!(words >> first) || first != name)
            continue;
        for (int i = 0; i <= column && words >> value; ++i) { }
        return value;
    }
    return ~uint64_t(0);
}

// The real ppe-arc program against ppe-arc-sim, each command one connection, against the machine's
// truth (the same image and tree run here, deterministically).
TEST(SimProgram, PpeArcCountAndCallsEqualTheMachinesTruth)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    auto truth = ppe::arc::sim::SimTarget::load({ PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, {} });
    ASSERT_TRUE(truth) << truth.error().str();
    ppe::arc::sim::Machine& machine = (*truth)->machine();
    ASSERT_EQ(machine.run(1ull << 32, true), ppe::arc::sim::Machine::Event::Ended);
    { // count on an OpenOCD-like target whose counters another user left running
        Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--busy" });
        const std::string port = sim.line(), before = sim.line();
        ASSERT_NE(before.find("count5=777"), std::string::npos) << before;
        Program arc({ PPE_ARC, "count", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--event",
            "crun,iall", "--duration", "60" }); // a bound: the core halts at the program's end long before
        const std::string table = arc.rest();
        EXPECT_EQ(arc.wait(), 0) << table;
        EXPECT_EQ(cell(table, "crun", 0), machine.totals().cycles) << table;
        EXPECT_EQ(cell(table, "iall", 0), machine.totals().instructions) << table;
        EXPECT_EQ(sim.line(), before) << "the PCT as found";
        EXPECT_EQ(sim.wait(), 0);
    }
    // calls by breakpoints on a gdbserver-like target: calls, outermost calls, depth
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--personality", "gdbserver" });
    const std::string port = sim.line();
    Program arc({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--elf",
        PPE_ARC_SIM_CALLS, "--function", "fact,shared,leaf", "--duration", "60" });
    const std::string table = arc.rest();
    EXPECT_EQ(arc.wait(), 0) << table;
    EXPECT_EQ(cell(table, "fact", 0), 500u) << table; // 100 calls from main, 5 deep
    EXPECT_EQ(cell(table, "fact", 1), 100u) << table;
    EXPECT_EQ(cell(table, "fact", 3), 5u) << table;
    EXPECT_EQ(cell(table, "shared", 0), 700u) << table; // 300 from left, 2 x 200 from right
    EXPECT_EQ(cell(table, "leaf", 0), 900u) << table; // 700 from shared, 200 from right
}

// calls.tree with fewer calls: main calls left 3 times, right twice, fact twice.
std::string smallTree()
{
    const std::string tree = ::testing::TempDir() + "arc_sim_small.tree";
    std::FILE* file = std::fopen(tree.c_str(), "w");
    if (!file)
        return "";
    std::fputs("root main\nfn main 20 1\nfn left 12 1\nfn right 15 2\nfn shared 40 3\nfn leaf 25 1\n"
               "fn fact 8 2 recurse 5\ncall main left 3\ncall main right 2\ncall main fact 2\n"
               "call left shared 1\ncall right shared 2\ncall right leaf 1\ncall shared leaf 1\ncall fact fact 1\n",
        file);
    std::fclose(file);
    return tree;
}

// ppe-arc calls --event crun on an OpenOCD-like target: each function's inclusive cycles, summed
// over its outermost calls, equal the tree's. A smaller tree than calls.tree (every PCT write at a
// stop is journalled, a few milliseconds each); every call of these functions is alike, so the truth
// is the number of outermost calls times one call's cycles.
TEST(SimProgram, PpeArcInclusiveCountsByBreakpointsEqualTheTruth)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    const std::string tree = smallTree();
    ASSERT_FALSE(tree.empty());
    auto truth = ppe::arc::sim::SimTarget::load({ PPE_ARC_SIM_CALLS, tree, {} });
    ASSERT_TRUE(truth) << truth.error().str();
    const ppe::arc::sim::Machine& machine = (*truth)->machine();
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", tree });
    const std::string port = sim.line(), before = sim.line();
    // The duration bounds the run: at the program's end the core halts and stays halted.
    Program arc({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--elf",
        PPE_ARC_SIM_CALLS, "--function", "fact,shared,right,leaf", "--event", "crun", "--duration", "3" });
    const std::string table = arc.rest();
    EXPECT_EQ(arc.wait(), 0) << table;
    const std::pair<const char*, uint64_t> outermost[]
        = { { "fact", 2 }, { "shared", 7 }, { "right", 2 }, { "leaf", 9 } };
    for (const auto& [name, calls] : outermost) {
        EXPECT_EQ(cell(table, name, 1), calls) << table;
        EXPECT_EQ(cell(table, name, 4), calls * machine.inclusiveCycles(name)) << name << "\n" << table;
    }
    EXPECT_EQ(sim.line(), before) << "the PCT as found";
}

// Writes `text` to a file of the test's temporary folder; its path.
std::string tempFile(const std::string& name, const std::string& text)
{
    const std::string path = ::testing::TempDir() + name;
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (!file)
        return "";
    std::fputs(text.c_str(), file);
    std::fclose(file);
    return path;
}

// ppe-arc descend (the call-graph descent) through a server it starts anew for each batch: main
// calls left heavily and fact lightly; fact calls leaf, which calls shared. At a 10 % threshold the
// descent measures main, left and fact, and skips leaf and shared by fact's count (2 %), never
// measuring them; what it measured equals the machine's truth, and the PCT is left as found.
TEST(SimProgram, PpeArcDescendSkipsWhatItsCallersProveSmall)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    const std::string tree = tempFile("descent.tree",
        "root main\nfn main 10 1\nfn left 100 1\nfn fact 5 1\nfn leaf 3 1\nfn shared 2 1\n"
        "call main left 20\ncall main fact 4\ncall fact leaf 1\ncall leaf shared 1\n");
    const std::string graph = tempFile("descent.graph", "main -> left\nmain -> fact\nfact -> leaf\nleaf -> shared\n");
    auto truth = ppe::arc::sim::SimTarget::load({ PPE_ARC_SIM_CALLS, tree, {} });
    ASSERT_TRUE(truth) << truth.error().str();
    const ppe::arc::sim::Machine& machine = (*truth)->machine();
    const std::string port = std::to_string(ppe::testing::freePort());
    const std::string dot = ::testing::TempDir() + "descent.dot";
    std::remove(dot.c_str());
    Program arc({ PPE_ARC, "descend", "--remote", "127.0.0.1:" + port, "--spawn",
        std::string(PPE_ARC_SIM) + " --elf " + PPE_ARC_SIM_CALLS + " --tree " + tree + " --port " + port, "--elf",
        PPE_ARC_SIM_CALLS, "--graph", graph, "--event", "crun", "--threshold", "10", "--batch", "1", "--dot", dot });
    const std::string out = arc.rest();
    EXPECT_EQ(arc.wait(), 0) << out;
    const uint64_t total = machine.inclusiveCycles("main");
    for (const char* name : { "main", "left", "fact" }) {
        const std::regex row("\\n +(\\d+) +[0-9.]+  measured   " + std::string(name) + "\\n");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(out, m, row)) << name << "\n" << out;
        const uint64_t calls = std::string(name) == "main" ? 1 : std::string(name) == "left" ? 20 : 4;
        EXPECT_EQ(std::stoull(m[1]), calls * machine.inclusiveCycles(name)) << name << "\n" << out;
    }
    for (const char* name : { "leaf", "shared" })
        EXPECT_TRUE(std::regex_search(out, std::regex("< \\d+ +pruned     " + std::string(name) + "\\n"))) << out;
    EXPECT_LT(4 * machine.inclusiveCycles("fact"), total / 10) << "the tree must make fact small";
    EXPECT_NE(out.find("3 runs instead of 5"), std::string::npos) << out;
    std::FILE* file = std::fopen(dot.c_str(), "r");
    ASSERT_NE(file, nullptr) << "no --dot file";
    char text[4096] = {};
    EXPECT_GT(std::fread(text, 1, sizeof(text) - 1, file), 0u);
    std::fclose(file);
    EXPECT_NE(std::string(text).find("(pruned)\", style=dashed]"), std::string::npos) << text;
}

TEST(SimProgram, BadInputIsOneLineNamingTheFile)
{
    Program sim({ PPE_ARC_SIM, "--elf", "/nonexistent/calls.arc", "--tree", PPE_ARC_SIM_TREE });
    const int status = sim.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
}

} // namespace
