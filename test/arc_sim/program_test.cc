// ppe-arc-sim, the simulated ARC target (a STAND-IN, README.md) as a program: it prints its port,
// serves one connection, stops the running machine on SIGINT as qemu-arc does, and says what is
// wrong with its input in one line.
#include "local_server.h"
#include "sim_target.h"

#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/session_start.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace {

struct Program {
    pid_t pid = -1;
    FILE* out = nullptr;
    int status = -1;

    // `errorsToo`: stderr into the same pipe (a message the test reads).
    explicit Program(std::vector<std::string> args, bool errorsToo = false)
    {
        int pipes[2];
        if (::pipe(pipes) != 0)
            return;
        pid = ::fork();
        if (pid == 0) {
            ::dup2(pipes[1], 1);
            if (errorsToo)
                ::dup2(pipes[1], 2);
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

// --aux-stub on a gdbserver-like target (a Linux user-mode program: it offers the auxiliary
// vector): the description has no PCT and there is no monitor, and the stub is not tried on a
// privileged register there (qemu-arc would abort); the report says why, and the command fails in
// one line. (The stub itself runs on the real qemu-arc: e2e/arc_aux_stub_test.cc.)
TEST(SimProgram, PpeArcAuxStubIsNotTriedOnALinuxProgram)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--personality", "gdbserver" });
    const std::string port = sim.line();
    Program arc(
        { PPE_ARC, "conditions", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--aux-stub", "0x1000:8" },
        true);
    const std::string said = arc.rest();
    EXPECT_NE(arc.wait(), 0) << said;
    EXPECT_NE(said.find("lr/sr stub: not tried: the target is a Linux user-mode program"), std::string::npos) << said;
    EXPECT_NE(said.find("error: no way to the aux registers"), std::string::npos) << said;
}

// Bad --aux-stub values are one line each, before anything is attached to (no server listens).
TEST(SimProgram, PpeArcAuxStubBadValuesAreOneLine)
{
    const std::pair<const char*, const char*> cases[] = { { "0x1000:4", "the stub takes 8 bytes" },
        { "0x1000:", "not SYMBOL or ADDR:SIZE" }, { "zz:8", "not SYMBOL or ADDR:SIZE" },
        { "0x1000:0", "not SYMBOL or ADDR:SIZE" }, { "0xffffffff:8", "not SYMBOL or ADDR:SIZE" },
        { "\x01\xff:8", "not SYMBOL or ADDR:SIZE" }, { "ppe_scratch", "a SYMBOL needs --elf PROG" } };
    for (const auto& [value, said] : cases) {
        Program arc({ PPE_ARC, "conditions", "--remote", "127.0.0.1:1", "--aux-stub", value }, true);
        const std::string out = arc.rest();
        EXPECT_NE(arc.wait(), 0) << value;
        EXPECT_NE(out.find(std::string("error: --aux-stub ") + value), std::string::npos) << value << ": " << out;
        EXPECT_NE(out.find(said), std::string::npos) << value << ": " << out;
        EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << "one line: " << out;
    }
}

// calls --method inject --event on an OpenOCD-like target whose counters another user left running:
// counter 0 is prepared but not started (the trampoline starts it at the function's outermost
// entry), and the simulated machine runs its call tree, not the code, so no trampoline runs and the
// count is 0, where a counter started at once would have counted the whole run; then the PCT is as
// it was found. (The trampolines' PCT action runs on qemu-arc with a stand-in register:
// e2e/arc_inject_test.cc.) The scratch region is the simulator's writable data.
TEST(SimProgram, PpeArcInjectEventPreparesTheCounter)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--busy" });
    const std::string port = sim.line(), before = sim.line();
    Program arc(
        { PPE_ARC, "calls", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--elf", PPE_ARC_SIM_CALLS,
            "--function", "fact", "--method", "inject", "--scratch", "0x5fff0000:0x10000", "--event", "crun" });
    const std::string table = arc.rest();
    EXPECT_EQ(arc.wait(), 0) << table;
    EXPECT_NE(table.find("fact: crun 0 inclusive"), std::string::npos) << table;
    EXPECT_NE(table.find("ended: main returned"), std::string::npos) << table;
    EXPECT_EQ(sim.line(), before) << "the PCT as found";
    EXPECT_EQ(sim.wait(), 0);
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
// is the number of outermost calls times one call's cycles. `__start`, where the core stands on
// attach (its entry breakpoint is never hit), counts the whole run. Then a run cut short by
// --duration (the machine slowed to an instruction a millisecond): `main`, still under way, counts
// up to the cut, and says so.
TEST(SimProgram, PpeArcInclusiveCountsByBreakpointsEqualTheTruth)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    const std::string tree = smallTree();
    ASSERT_FALSE(tree.empty());
    auto truth = ppe::arc::sim::SimTarget::load({ PPE_ARC_SIM_CALLS, tree, {} });
    ASSERT_TRUE(truth) << truth.error().str();
    ppe::arc::sim::Machine& machine = (*truth)->machine();
    ASSERT_EQ(machine.run(1ull << 32, true), ppe::arc::sim::Machine::Event::Ended);
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", tree });
    const std::string port = sim.line(), before = sim.line();
    // The duration bounds the run: at the program's end the core halts and stays halted.
    Program arc({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--elf",
        PPE_ARC_SIM_CALLS, "--function", "__start,fact,shared,right,leaf", "--event", "crun", "--duration", "3" });
    const std::string table = arc.rest();
    EXPECT_EQ(arc.wait(), 0) << table;
    const std::pair<const char*, uint64_t> outermost[]
        = { { "fact", 2 }, { "shared", 7 }, { "right", 2 }, { "leaf", 9 } };
    for (const auto& [name, calls] : outermost) {
        EXPECT_EQ(cell(table, name, 1), calls) << table;
        EXPECT_EQ(cell(table, name, 4), calls * machine.inclusiveCycles(name)) << name << "\n" << table;
    }
    EXPECT_EQ(cell(table, "__start", 1), 1u) << table;
    EXPECT_EQ(cell(table, "__start", 4), machine.totals().cycles) << table;
    EXPECT_EQ(sim.line(), before) << "the PCT as found";
    EXPECT_EQ(sim.wait(), 0);

    Program slow(
        { PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", tree, "--slice-steps", "1", "--slice-us", "1000" });
    const std::string slowPort = slow.line();
    Program cut({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + slowPort.substr(0, slowPort.size() - 1), "--elf",
        PPE_ARC_SIM_CALLS, "--function", "main", "--event", "crun", "--duration", "0.1" });
    const std::string partial = cut.rest();
    EXPECT_EQ(cut.wait(), 0) << partial;
    EXPECT_EQ(cell(partial, "main", 2), 0u) << partial;
    EXPECT_GT(cell(partial, "main", 4), 0u) << partial;
    EXPECT_LT(cell(partial, "main", 4), machine.totals().cycles) << partial;
    EXPECT_NE(partial.find("main: 1 call(s) still under way at the end, counted up to it"), std::string::npos)
        << partial;
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

// ppe-arc count --range (PCT_RANGEL/H, the enable bit from a core profile) against ppe-arc-sim
// whose PCT model keeps bit 24 of PCT_CONFIG as the range's: a function's crun equals the cycles the
// machine ran inside it, a LO-HI range another's, and the PCT (left busy by another user) is put
// back as found.
TEST(SimProgram, PpeArcRangeCountEqualsTheCyclesRunInsideAFunction)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    auto truth = ppe::arc::sim::SimTarget::load({ PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, {} });
    ASSERT_TRUE(truth) << truth.error().str();
    ppe::arc::sim::Machine& machine = (*truth)->machine();
    ASSERT_EQ(machine.run(1ull << 32, true), ppe::arc::sim::Machine::Event::Ended);
    const std::string profile
        = tempFile("sim.profile", "# the simulated target\ncore sim-hs38\nrange-enable pct_config 24\n");
    const auto& fact = machine.tree().functions.at(machine.tree().find("fact"));
    char factRange[64];
    std::snprintf(factRange, sizeof(factRange), "0x%x-0x%x", fact.address, fact.address + fact.size - 1);
    for (const std::string& range : { std::string("shared"), std::string(factRange) }) {
        Program sim(
            { PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--busy", "--range-bit", "24" });
        const std::string port = sim.line(), before = sim.line();
        Program arc({ PPE_ARC, "count", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--event",
            "crun,iall", "--range", range, "--core-profile", profile, "--elf", PPE_ARC_SIM_CALLS, "--duration", "60" });
        const std::string table = arc.rest();
        EXPECT_EQ(arc.wait(), 0) << table;
        const uint64_t inside = machine.cyclesIn(range == "shared" ? "shared" : "fact");
        EXPECT_GT(inside, 0u);
        EXPECT_EQ(cell(table, "crun", 0), inside) << range << "\n" << table;
        EXPECT_LT(cell(table, "iall", 0), machine.totals().instructions) << table;
        EXPECT_NE(
            table.find("bit 24 of pct_config, from the core profile of sim-hs38, read back set"), std::string::npos)
            << table;
        EXPECT_EQ(sim.line(), before) << "the PCT as found";
        EXPECT_EQ(sim.wait(), 0);
    }
}

// Without a core profile range counting is off (said before anything is attached to); a profile
// that cannot be read is one line naming the file and line.
TEST(SimProgram, PpeArcRangeWithoutAGoodProfileIsOff)
{
    Program none({ PPE_ARC, "count", "--remote", "127.0.0.1:1", "--event", "crun", "--range", "0x100-0x1ff" }, true);
    const std::string said = none.rest();
    const int status = none.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << status;
    EXPECT_EQ(said.rfind("ppe-arc: error: range counting is off: ", 0), 0u) << said;
    EXPECT_NE(said.find("--core-profile FILE"), std::string::npos) << said;
    EXPECT_EQ(std::count(said.begin(), said.end(), '\n'), 1) << said;
    const std::string bad = tempFile("bad.profile", "core x\nrange-enable pct_config 18\n");
    Program damaged({ PPE_ARC, "count", "--remote", "127.0.0.1:1", "--event", "crun", "--range", "0x100-0x1ff",
                        "--core-profile", bad },
        true);
    const std::string line = damaged.rest();
    EXPECT_EQ(damaged.wait(), 1 << 8) << line;
    EXPECT_EQ(line,
        "ppe-arc: error: " + bad
            + ":2: range-enable: bit 18 of pct_config is the condition or the "
              "user/kernel bits\n");
}

// A profile whose bit the core does not keep (the model's is 24, the profile says 23) is refused
// after the read-back, saying so, and the PCT is left as found.
TEST(SimProgram, PpeArcRangeRefusesABitTheCoreDoesNotKeep)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    const std::string profile = tempFile("other.profile", "core other-core\nrange-enable pct_config 23\n");
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--busy", "--range-bit", "24" });
    const std::string port = sim.line(), before = sim.line();
    Program arc({ PPE_ARC, "count", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--event", "crun",
                    "--range", "shared", "--core-profile", profile, "--elf", PPE_ARC_SIM_CALLS },
        true);
    const std::string said = arc.rest();
    EXPECT_EQ(arc.wait(), 1 << 8) << said;
    EXPECT_NE(said.find("ppe-arc: error: the core does not keep bit 23 of pct_config (wrote 0x800002, read back "
                        "0x2): range counting is off; the core profile (core other-core) is not this core's"),
        std::string::npos)
        << said;
    EXPECT_EQ(sim.line(), before) << "the PCT as found";
}

// The journal's lines naming `reg`.
int journalled(const std::string& journal, const std::string& reg)
{
    std::ifstream in(journal);
    int n = 0;
    for (std::string line; std::getline(in, line);)
        n += line.rfind("register " + reg + " ", 0) == 0;
    return n;
}

// ppe-arc count --range killed with SIGKILL while the target runs, its counters limited to the range:
// `ppe-arc restore` with the journal it left puts the PCT back as it was before (a busy one).
TEST(SimProgram, PpeArcRestoreAfterAKilledRangeCountPutsThePctBack)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    const std::string profile = tempFile("sim.profile", "core sim-hs38\nrange-enable pct_config 24\n");
    const std::string journal = ::testing::TempDir() + "range.undo";
    std::remove(journal.c_str());
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--busy", "--range-bit", "24",
        "--connections", "2", "--slice-steps", "1", "--slice-us", "10000" }); // runs for minutes
    const std::string port = sim.line(), before = sim.line(), remote = "127.0.0.1:" + port.substr(0, port.size() - 1);
    Program arc({ PPE_ARC, "count", "--remote", remote, "--journal", journal, "--event", "crun", "--range", "shared",
        "--core-profile", profile, "--elf", PPE_ARC_SIM_CALLS, "--duration", "600" });
    // Started: PCT_CONTROL written twice (stopped, then run), after the range and its bit.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (journalled(journal, "pct_control") < 2 && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    ASSERT_EQ(journalled(journal, "pct_control"), 2) << "ppe-arc count never started its counters";
    EXPECT_GE(journalled(journal, "pct_rangel"), 1);
    ::kill(arc.pid, SIGKILL);
    arc.wait();
    const std::string killed = sim.line();
    EXPECT_NE(killed, before) << "the killed run changed the PCT";
    EXPECT_NE(killed.find("config0=16777218"), std::string::npos) << "crun (2) with bit 24: " << killed;
    Program restore({ PPE_ARC, "restore", "--journal", journal, "--remote", remote });
    const std::string said = restore.rest();
    EXPECT_EQ(restore.wait(), 0) << said;
    EXPECT_EQ(sim.line(), before) << "the PCT as found, after restore";
    EXPECT_EQ(sim.wait(), 0);
}

} // namespace

// ppe-arc sample --mode running: on an OpenOCD-like server the PC is read while the core runs, and
// the profile says that no stop was made for a sample; on a gdbserver-like one (no `p`) it is
// refused in one line, the program run on.
TEST(SimProgram, PpeArcSampleInRunningModeMakesNoStop)
{
    if (std::string(PPE_ARC_SIM_CALLS).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target";
    const std::string out = ::testing::TempDir() + "arc_sim_running.ppe";
    std::remove(out.c_str());
    {
        Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--slice-steps", "13" });
        const std::string port = sim.line();
        Program arc({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--elf",
                        PPE_ARC_SIM_CALLS, "--mode", "running", "--interval", "2", "--duration", "0.5", "-o", out },
            true);
        const std::string said = arc.rest();
        EXPECT_EQ(arc.wait(), 0) << said;
        EXPECT_NE(said.find("running mode (--mode running)"), std::string::npos) << said;
        EXPECT_TRUE(std::regex_search(said, std::regex(R"(\d{2,} samples read while the target ran, 0 stops)")))
            << said;
        std::ifstream profile(out);
        const std::string text((std::istreambuf_iterator<char>(profile)), {});
        EXPECT_NE(text.find("intrusion-stops 0\n"), std::string::npos) << text.substr(0, 1500);
        EXPECT_NE(text.find("read-while-running"), std::string::npos) << text.substr(0, 1500);
    }
    Program sim({ PPE_ARC_SIM, "--elf", PPE_ARC_SIM_CALLS, "--tree", PPE_ARC_SIM_TREE, "--personality", "gdbserver" });
    const std::string port = sim.line();
    Program arc({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port.substr(0, port.size() - 1), "--elf",
                    PPE_ARC_SIM_CALLS, "--mode", "running", "-o", out + ".refused" },
        true);
    const std::string said = arc.rest();
    const int status = arc.wait();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << said;
    EXPECT_NE(said.find("--mode running reads the PC with `p`, and this server has no `p`"), std::string::npos) << said;
}
