// Call counts by code injection (ppe-arc calls --method inject, issue 37) on the real qemu-arc:
// arc_inject.c, whose measured functions sit on pages the program makes writable. The counts equal
// what the program counted itself (a recursive fib, a leaf called from two sites), the program's
// output is what it is without ppe-arc, the entry bytes ppe-arc read before the patch and after
// its removal both equal the ELF's own bytes there, and no journal is left. A program that did not
// make its code writable (arc_calls.c) is refused with one line naming the function, and runs on.
#include "arc_session.h"
#include "temp_dir.h"

#include "ppe/arc/elf_image.h"
#include "ppe/arc/image_check.h"
#include "ppe/arc/injection.h"

#include <algorithm>
#include <csignal>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <regex>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>

using namespace ppe::testing;

namespace {

bool haveQemuArc(std::string& reason)
{
    if (!executable(PPE_QEMU_ARC))
        reason = "qemu-arc is absent (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH)";
    else if (std::string(PPE_INJECT_ARC).empty())
        reason = "arc-linux-gnu-gcc-12 is absent (Debian: gcc-12-arc-linux-gnu)";
    return reason.empty();
}

// Runs ppe-arc with `args` against qemu-arc running `program` on a free port (retrying while the
// port is not yet listening); ppe-arc's result and the program's.
std::pair<RunResult, RunResult> underQemu(const std::vector<std::string>& program, std::vector<std::string> args)
{
    RunResult tool;
    for (int attempt = 0; attempt < 50; ++attempt, ::usleep(100000)) {
        const std::string port = std::to_string(freePort());
        std::vector<std::string> server = { PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", "-g", port };
        server.insert(server.end(), program.begin(), program.end());
        Running served = startProgram(server);
        std::vector<std::string> command = { PPE_ARC, "calls", "--remote", "127.0.0.1:" + port };
        command.insert(command.end(), args.begin(), args.end());
        for (int i = 0; i < 100; ++i, ::usleep(50000)) { // qemu-arc may still be starting
            tool = runProgram(command);
            if (tool.err.find("refused") == std::string::npos)
                break;
        }
        if (tool.err.find("refused") != std::string::npos)
            ::kill(served.pid, SIGKILL);
        RunResult ran = waitProgram(served);
        if (tool.err.find("refused") == std::string::npos)
            return { tool, ran };
    }
    return { tool, RunResult {} };
}

// "calls fib N twice N leaf N" from the program's output.
std::map<std::string, uint64_t> programCounts(const std::string& output)
{
    std::map<std::string, uint64_t> counts;
    std::smatch m;
    if (std::regex_search(output, m, std::regex("calls fib (\\d+) twice (\\d+) leaf (\\d+)")))
        counts = { { "fib", std::stoull(m[1]) }, { "twice", std::stoull(m[2]) }, { "leaf", std::stoull(m[3]) } };
    return counts;
}

// The bytes of the ELF file at the link-time address `address`, as hex.
std::string elfBytes(const std::string& path, uint64_t address, size_t size)
{
    ppe::Result<ppe::arc::ElfImage> elf = ppe::arc::readElfImage(path);
    uint64_t offset = 0;
    if (!elf || !elf->fileOffsetOf(address, offset))
        return "";
    std::ifstream in(path, std::ios::binary);
    in.seekg(std::streamoff(offset));
    std::string bytes(size, '\0'), hex;
    in.read(bytes.data(), std::streamsize(size));
    char two[3];
    for (unsigned char c : bytes) {
        std::snprintf(two, sizeof two, "%02x", c);
        hex += two;
    }
    return hex;
}

uint64_t functionAddress(const std::string& path, const std::string& name)
{
    auto functions = ppe::arc::readElfFunctions(path);
    for (const auto& f : functions ? *functions : std::vector<ppe::arc::ElfFunction> {})
        if (f.name == name)
            return f.address;
    return 0;
}

struct InjectRun {
    RunResult alone, tool, served; // the program without ppe-arc; ppe-arc calls; the program under it
};

// arc_inject.c (fib(12), 40 rounds) alone under qemu-arc, then under `ppe-arc calls --method inject`
// with its scratch region and `args`.
InjectRun injectUnderQemu(std::vector<std::string> args)
{
    const std::vector<std::string> program = { PPE_INJECT_ARC, "12", "40" };
    InjectRun run;
    run.alone = aloneUnderQemu(program);
    args.insert(args.begin(), { "--elf", PPE_INJECT_ARC, "--method", "inject", "--scratch", "ppe_scratch" });
    std::tie(run.tool, run.served) = underQemu(program, args);
    return run;
}

} // namespace

TEST(ArcInject, QemuArcCountsEveryCallAndRestoresTheCode)
{
    std::string reason;
    if (!haveQemuArc(reason))
        GTEST_SKIP() << reason;
    TempDir dir;
    const std::string journal = dir.file("inject.undo");
    const auto [alone, tool, served] = injectUnderQemu({ "--function", "fib,twice,leaf", "--journal", journal });
    ASSERT_EQ(alone.status, 0) << alone.err;
    ASSERT_EQ(tool.status, 0) << tool.out << tool.err;
    EXPECT_EQ(served.out, alone.out) << "the program's output changed under the trampolines";
    EXPECT_NE(tool.out.find("method: code injection"), std::string::npos) << tool.out;
    const auto truth = programCounts(alone.out);
    ASSERT_EQ(truth.size(), 3u) << alone.out;
    std::smatch m;
    for (const auto& [name, count] : truth) {
        ASSERT_TRUE(std::regex_search(tool.out, m, std::regex(name + " +(\\d+) +(\\d+) +(\\d+) +(\\d+) +(\\d+)")))
            << tool.out;
        EXPECT_EQ(std::stoull(m[1]), count) << name << " calls\n" << tool.out;
        EXPECT_EQ(std::stoull(m[2]), count) << name << " returns\n" << tool.out;
        EXPECT_EQ(std::stoull(m[4]), 0u) << name << ": no return left unhooked";
        if (name == "fib") {
            EXPECT_EQ(std::stoull(m[3]), 12u) << "fib(12) recurses 12 deep";
        }
        ASSERT_TRUE(std::regex_search(tool.out, m,
            std::regex(
                name + ": entry 0x[0-9a-f]+, trampoline 0x[0-9a-f]+; bytes ([0-9a-f]+) before, ([0-9a-f]+) after")))
            << tool.out;
        const std::string elf = elfBytes(PPE_INJECT_ARC, functionAddress(PPE_INJECT_ARC, name), m[1].length() / 2);
        EXPECT_EQ(m[1].str(), elf) << name << ": what the target held before the patch is the ELF's code";
        EXPECT_EQ(m[2].str(), elf) << name << ": what it holds after the removal is the ELF's code";
    }
    EXPECT_FALSE(fileExists(journal)) << readFile(journal);
}

// A program that never made its code writable: qemu-arc answers E14 to the patch, ppe-arc says so
// in one line naming the function and the breakpoint method, and the program runs on to its end.
TEST(ArcInject, QemuArcRefusesCodeItCannotWrite)
{
    std::string reason;
    if (!haveQemuArc(reason) || std::string(PPE_CALLS_ARC).empty())
        GTEST_SKIP() << (reason.empty() ? "arc_calls.c was not built for ARC" : reason);
    TempDir dir;
    const std::vector<std::string> program = { PPE_CALLS_ARC, "10", "5" };
    const RunResult alone = aloneUnderQemu(program);
    ASSERT_EQ(alone.status, 0) << alone.err;
    auto [tool, served] = underQemu(program,
        { "--elf", PPE_CALLS_ARC, "--function", "fib", "--method", "inject", "--scratch", "0x70000000:4096",
            "--journal", dir.file("refused.undo") });
    EXPECT_EQ(tool.status, 1) << tool.out << tool.err;
    EXPECT_TRUE(std::regex_search(tool.err, std::regex("error: fib: the code at 0x[0-9a-f]+ cannot be written.*E14")))
        << tool.err;
    EXPECT_NE(tool.err.find("--method breakpoint"), std::string::npos) << tool.err;
    EXPECT_EQ(served.out, alone.out) << "the refused program ran on as it would";
    EXPECT_FALSE(fileExists(dir.file("refused.undo")));
}

// ppe-arc killed while the patches are in: the journal it leaves names each patched entry with the
// ELF's own bytes there, which `ppe-arc restore` writes back on a server that takes a second
// connection. qemu-arc 7.0 takes one only: restore says it cannot reach it and keeps the journal.
TEST(ArcInject, QemuArcAfterSigkillTheJournalHoldsTheOriginalBytes)
{
    std::string reason;
    if (!haveQemuArc(reason))
        GTEST_SKIP() << reason;
    TempDir dir;
    const std::string journal = dir.file("killed.undo"), port = std::to_string(freePort());
    Running server = startProgram({ PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", "-g", port, PPE_INJECT_ARC, "33", "40" });
    Running tool;
    std::string text;
    const auto patched = [&] { return std::regex_search(text = readFile(journal), std::regex("(memory .*\\n?){3}")); };
    for (int i = 0; i < 100 && !patched(); ++i) { // qemu-arc may still be starting
        tool = startProgram({ PPE_ARC, "calls", "--remote", "127.0.0.1:" + port, "--elf", PPE_INJECT_ARC, "--function",
            "fib,twice,leaf", "--method", "inject", "--scratch", "ppe_scratch", "--journal", journal });
        for (int k = 0; k < 300 && !patched(); ++k, ::usleep(10000))
            if (::waitpid(tool.pid, nullptr, WNOHANG) == tool.pid)
                break;
    }
    ASSERT_TRUE(patched()) << "ppe-arc never journalled the three patches: " << text << readFile(tool.errPath);
    ::kill(tool.pid, SIGKILL);
    waitProgram(tool);
    ::kill(server.pid, SIGKILL);
    waitProgram(server);
    std::map<std::string, std::string> journalled; // address -> bytes
    std::smatch m;
    for (std::string rest = readFile(journal); std::regex_search(rest, m, std::regex("memory ([0-9a-f]+) ([0-9a-f]+)"));
         rest = m.suffix())
        journalled[m[1]] = m[2];
    for (const char* name : { "fib", "twice", "leaf" }) {
        const uint64_t address = functionAddress(PPE_INJECT_ARC, name);
        char key[24];
        std::snprintf(key, sizeof key, "%llx", static_cast<unsigned long long>(address));
        ASSERT_TRUE(journalled.count(key)) << name << " at " << key << " is not in the journal:\n" << readFile(journal);
        EXPECT_EQ(journalled[key], elfBytes(PPE_INJECT_ARC, address, journalled[key].size() / 2)) << name;
    }
    RunResult restored = runProgram({ PPE_ARC, "restore", "--journal", journal });
    EXPECT_EQ(restored.status, 1) << restored.out << restored.err;
    EXPECT_TRUE(fileExists(journal)) << "a journal that could not be applied is kept";
}

// Recursion deeper than --depth: the calls below it are counted, their returns not hooked
// (overflow), and the program runs as it would. fib(12) with 5 saved returns: the calls at depth 6
// and more of fib's call tree overflow.
TEST(ArcInject, QemuArcRecursionDeeperThanTheStackOfReturns)
{
    std::string reason;
    if (!haveQemuArc(reason))
        GTEST_SKIP() << reason;
    TempDir dir;
    const std::vector<std::string> program = { PPE_INJECT_ARC, "12", "3" };
    const RunResult alone = runProgram({ PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", PPE_INJECT_ARC, "12", "3" });
    ASSERT_EQ(alone.status, 0) << alone.err;
    auto [tool, served] = underQemu(program,
        { "--elf", PPE_INJECT_ARC, "--function", "fib", "--method", "inject", "--scratch", "ppe_scratch", "--depth",
            "5", "--journal", dir.file("deep.undo") });
    ASSERT_EQ(tool.status, 0) << tool.out << tool.err;
    EXPECT_EQ(served.out, alone.out);
    std::function<uint64_t(int, int)> deeper = [&](int n, int depth) -> uint64_t { // fib(n)'s calls below 5
        return (depth > 5) + (n < 2 ? 0 : deeper(n - 1, depth + 1) + deeper(n - 2, depth + 1));
    };
    const uint64_t overflow = deeper(12, 1);
    std::smatch m;
    ASSERT_TRUE(std::regex_search(tool.out, m, std::regex("fib +(\\d+) +(\\d+) +(\\d+) +(\\d+)"))) << tool.out;
    EXPECT_EQ(std::stoull(m[1]), programCounts(alone.out).at("fib"));
    EXPECT_EQ(std::stoull(m[2]), std::stoull(m[1]) - overflow) << "the hooked calls returned";
    EXPECT_EQ(std::stoull(m[3]), 5u) << "no deeper than the stack of returns";
    EXPECT_EQ(std::stoull(m[4]), overflow);
}

// Without a scratch region there is nowhere to put the trampolines: said before anything is
// attached to (the port named is never connected to).
TEST(ArcInject, WithoutAScratchRegionItSaysSo)
{
    const RunResult r = runProgram({ PPE_ARC, "calls", "--remote", "127.0.0.1:1", "--elf", PPE_CALLS_NATIVE,
        "--function", "fib", "--method", "inject" });
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("error: --method inject needs a scratch region"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one line: " << r.err;
}

// --event with --method inject: the trampoline of one function starts the counters at its outermost
// entry and stops them at its return, so two functions are refused before anything is attached;
// and on qemu-arc, which has no PCT (a Linux user-mode program, where it would be privileged), the
// probe finds no way to it, ppe-arc says so in one error line, and the program runs on unchanged.
// (The count itself needs a core that runs code and has a PCT: none here. Its parts are run apart:
// the counter prepared and read on the simulated target, SimProgram.PpeArcInjectEventPreparesTheCounter,
// and the trampolines' PCT action on qemu-arc with a stand-in register, below.)
TEST(ArcInject, AnEventIsCountedForOneFunctionAndNeedsThePct)
{
    const RunResult two = runProgram({ PPE_ARC, "calls", "--remote", "127.0.0.1:1", "--elf", PPE_CALLS_NATIVE,
        "--function", "fib,leaf", "--method", "inject", "--scratch", "0x1000:64", "--event", "crun" });
    EXPECT_EQ(two.status, 1);
    EXPECT_NE(two.err.find("error: --method inject counts an --event for one --function"), std::string::npos)
        << two.err;
    std::string reason;
    if (!haveQemuArc(reason))
        GTEST_SKIP() << reason;
    TempDir dir;
    const std::string journal = dir.file("event.undo");
    const auto [alone, tool, served]
        = injectUnderQemu({ "--function", "fib", "--event", "crun", "--journal", journal });
    ASSERT_EQ(alone.status, 0) << alone.err;
    EXPECT_EQ(tool.status, 1) << tool.out << tool.err;
    EXPECT_NE(tool.err.find("target description: no pct_build"), std::string::npos) << tool.err;
    EXPECT_NE(tool.err.find("error: no way to the aux registers"), std::string::npos) << tool.err;
    EXPECT_EQ(served.out, alone.out) << "the refused program did not run on as it would";
    EXPECT_FALSE(fileExists(journal)) << readFile(journal);
}

// The trampolines' PCT action (--action pct) run for real. No core here both runs code and has a
// PCT, so the action's register is a stand-in: lp_start, which a program may read and write, and
// which arc_inject.c runs no zero-overhead loop to use. The action writes 1 at the outermost entry
// of a hooked function (the counters run) and 0 at its outermost return (they stop): twice() reads
// it inside its own call and prints 0x1, and after main returned it holds 0, where a marker was
// written before the run. The call counts are exact all the same.
TEST(ArcInject, QemuArcRunsThePctActionWithAStandInRegister)
{
    std::string reason;
    if (!haveQemuArc(reason))
        GTEST_SKIP() << reason;
    ppe::Result<std::vector<ppe::arc::ElfFunction>> all = ppe::arc::readElfFunctions(PPE_INJECT_ARC);
    ppe::Result<ppe::arc::ElfObject> scratch = ppe::arc::readElfObject(PPE_INJECT_ARC, "ppe_scratch");
    ppe::Result<ppe::arc::ElfImage> elf = ppe::arc::readElfImage(PPE_INJECT_ARC);
    ASSERT_TRUE(all && scratch && elf);
    std::vector<ppe::arc::ElfFunction> hooked;
    ppe::arc::ElfFunction main;
    for (const ppe::arc::ElfFunction& f : *all) {
        if (f.name == "fib" || f.name == "twice" || f.name == "leaf")
            hooked.push_back(f);
        main = f.name == "main" ? f : main;
    }
    ASSERT_EQ(hooked.size(), 3u);
    TempDir dir;
    std::unique_ptr<QemuArcSession> q = startQemuArc({ PPE_INJECT_ARC, "12", "40" }, dir.file("pct.undo"));
    ASSERT_TRUE(q->error.empty()) << q->error;
    ppe::gdbremote::TargetAccess& access = *q->access;
    ppe::Result<uint64_t> bias = ppe::arc::checkImage(*q->session, *elf, q->description.architecture);
    ASSERT_TRUE(bias) << bias.error().str();
    ASSERT_TRUE(access.writeRegister("lp_start", 0x1230));
    ppe::arc::InjectOptions options;
    options.bias = *bias;
    options.scratch = uint32_t(scratch->address + *bias);
    options.scratchSize = uint32_t(scratch->size);
    options.action = ppe::arc::HookAction::Pct;
    options.pctControl = 0x2; // lp_start
    ppe::Result<ppe::arc::InjectionResult> result
        = ppe::arc::countCallsByInjection(*q->control, access, hooked, main, options, nullptr);
    ASSERT_TRUE(result) << result.error().str();
    EXPECT_EQ(result->end, "main returned");
    ppe::Result<uint64_t> control = access.readRegister("lp_start");
    ASSERT_TRUE(control) << control.error().str();
    EXPECT_EQ(*control, 0u) << "the outermost return did not stop the counters";
    ASSERT_TRUE(access.undoAll());
    const RunResult served = q->finish();
    EXPECT_EQ(served.status, 0) << served.err;
    EXPECT_NE(served.out.find("lp_start in twice 0x1\n"), std::string::npos)
        << "the outermost entry did not start the counters: " << served.out;
    const auto truth = programCounts(served.out);
    ASSERT_EQ(truth.size(), 3u) << served.out;
    for (const ppe::arc::InjectedCalls& f : result->functions) {
        EXPECT_EQ(f.calls, truth.at(f.name)) << f.name << ": the PCT action changed the counts";
        EXPECT_EQ(f.returns, f.calls) << f.name;
    }
}
