// ppe-arc end to end: examples/split.c (six(), three() and one() run the same loop body 6, 3 and
// 1 times as often) sampled by the real ppe-arc through real debug servers, formatted by the real
// ppeout with the build's map: the samples in the three must fit 0.6, 0.3 and 0.1 (a chi-square test
// at 1e-4). QEMU attributes PCs to translation-block entries, so shares are compared at function
// level (--by function) everywhere.
#include "csv_rows.h"
#include "local_server.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <csignal>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <netinet/in.h>
#include <optional>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ppe::testing;

namespace {

constexpr uint64_t kEnough = 600; // samples in the three functions before shares are judged

// Iterations of one() a round of split: about 10 us natively. The binomial errors hold only for
// samples that are independent, so a round must be far shorter than the CPU time the target gets
// between two samples, which on a loaded machine can be well under split's default round (about
// 0.2 ms).
constexpr const char* kRound = "1000";

// Runs ppe-arc sample against a server it starts with `spawn` ("{PORT}" replaced).
RunResult sample(const std::string& elf, const std::string& spawn, const std::string& out,
    const std::vector<std::string>& extra = {})
{
    const std::string port = std::to_string(freePort());
    std::string command = std::regex_replace(spawn, std::regex("\\{PORT\\}"), port);
    std::vector<std::string> argv
        = { PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", elf, "-o", out, "--spawn", command };
    argv.insert(argv.end(), extra.begin(), extra.end());
    return runProgram(argv);
}

// Hits of each module row of a ppeout report ("   1 - six (x.o)   58.44 +- 2.47 ... 232  104B4  50").
std::map<std::string, uint64_t> moduleHits(const std::string& report)
{
    std::map<std::string, uint64_t> hits;
    static const std::regex row(R"(^ *\d+ - (\w+)[^\n]*?\d+\.\d+ \+- +\d+\.\d+ +\d+\.\d+ +\d+\.\d+ +(\d+) )");
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_search(line, m, row))
            hits[m[1]] = std::stoull(m[2]);
    }
    return hits;
}

uint64_t inThree(const std::map<std::string, uint64_t>& hits)
{
    uint64_t n = 0;
    for (const char* f : { "six", "three", "one" })
        n += hits.count(f) ? hits.at(f) : 0;
    return n;
}

// The three functions' hits fit 6:3:1: Pearson's chi-square over the three (2 degrees of freedom,
// so P(chi2 > x) = exp(-x/2)) must not reject the truth at 1e-4. A 3-error band on each function
// was 15 comparisons at 0.27 % each over the five split checks: a correct sampler failed about one
// run of the suite in 30. This fails one in 2000, and with kEnough samples still rejects six and
// three off by 8 points each (52:38:10 in 600 samples: chi2 19.2).
void expectSplit(const std::map<std::string, uint64_t>& hits)
{
    constexpr double kCritical = 18.42; // -2 ln(1e-4)
    const double n = double(inThree(hits));
    double chi2 = 0;
    std::ostringstream shares;
    shares.precision(4);
    for (auto [name, truth] : { std::pair { "six", 0.6 }, { "three", 0.3 }, { "one", 0.1 } }) {
        const double observed = hits.count(name) ? double(hits.at(name)) : 0, expected = truth * n;
        chi2 += (observed - expected) * (observed - expected) / expected;
        shares << " " << name << " " << 100 * observed / n << " %";
    }
    EXPECT_LT(chi2, kCritical) << "6:3:1 rejected (p < 1e-4) in " << n << " samples:" << shares.str();
}

// The report ppeout makes of `ppe` with `map`, by function.
std::string byFunction(const std::string& map, const std::string& ppe)
{
    RunResult r = runProgram({ PPEOUT, "--by", "function", map, ppe, "-" });
    EXPECT_TRUE(r.exited && r.status == 0) << r.err;
    return r.out;
}

// Samples split (for `ms` milliseconds, doubled until enough samples land in the three functions)
// through the server `spawn` starts, and checks the split. Returns the last report.
std::string checkSplit(const std::string& elf, const std::string& map, const std::string& spawnFormat, int ms,
    const std::vector<std::string>& extra = {})
{
    TempDir dir;
    std::string report;
    for (int attempt = 0; attempt < 3; ++attempt, ms *= 2) {
        const std::string out = dir.file("split" + std::to_string(attempt) + ".ppe");
        RunResult r = sample(elf, spawnFormat + " " + std::to_string(ms) + " " + kRound, out, extra);
        EXPECT_TRUE(r.exited && r.status == 0) << r.err;
        if (!fileExists(out))
            return {};
        auto profile = ppe::readProfile(out);
        EXPECT_TRUE(profile.ok()) << (profile ? "" : profile.error().str());
        if (profile) {
            EXPECT_EQ(profile->endReason, "exit") << r.err;
        }
        report = byFunction(map, out);
        if (inThree(moduleHits(report)) >= kEnough)
            break;
    }
    std::cout << report.substr(0, report.find("Program text"));
    EXPECT_GE(inThree(moduleHits(report)), kEnough);
    expectSplit(moduleHits(report));
    return report;
}

} // namespace

TEST(ArcSample, HelpAndVersion)
{
    RunResult help = runProgram({ PPE_ARC, "--help" });
    EXPECT_EQ(help.status, 0);
    EXPECT_NE(help.out.find("usage: ppe-arc sample --remote HOST:PORT --elf PROG"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--spawn"), std::string::npos);
    RunResult version = runProgram({ PPE_ARC, "--version" });
    EXPECT_EQ(version.status, 0);
    EXPECT_TRUE(version.out.rfind("ppe-arc ", 0) == 0) << version.out;
}

TEST(ArcSample, MistakesAreOneLineErrors)
{
    for (const auto& args : std::vector<std::vector<std::string>> {
             { PPE_ARC, "sample", "--elf", PPE_SPLIT_NATIVE },
             { PPE_ARC, "sample", "--remote", "127.0.0.1:1", "--elf", "/nonexistent" },
             { PPE_ARC, "sample", "--remote", "127.0.0.1:1", "--elf", PPE_SPLIT_NATIVE, "--connect-timeout", "0" },
             { PPE_ARC, "sample", "--remote", "x:1", "--elf", PPE_SPLIT_NATIVE, "--interval", "0" },
         }) {
        RunResult r = runProgram(args);
        EXPECT_EQ(r.status, 1) << args.back();
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_TRUE(r.err.rfind("ppe-arc: error: ", 0) == 0) << r.err;
    }
}

TEST(ArcSplit, GdbserverLaunched)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    const std::string split = PPE_SPLIT_NATIVE;
    checkSplit(split, split + ".map", std::string(PPE_GDBSERVER) + " :{PORT} " + split, 3000, { "--interval", "2" });
}

TEST(ArcSplit, QemuAarch64)
{
    if (!executable(PPE_QEMU_AARCH64) || !executable(PPE_SPLIT_AARCH64))
        GTEST_SKIP() << "qemu-aarch64 or aarch64-linux-gnu-gcc is not installed (Debian: qemu-user, "
                        "gcc-aarch64-linux-gnu)";
    const std::string split = PPE_SPLIT_AARCH64;
    checkSplit(
        split, split + ".map", std::string(PPE_QEMU_AARCH64) + " -g {PORT} " + split, 3000, { "--interval", "2" });
}

TEST(ArcSplit, QemuArc)
{
    if (!executable(PPE_QEMU_ARC) || !executable(PPE_SPLIT_ARC))
        GTEST_SKIP() << "qemu-arc (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH) or arc-linux-gnu-gcc-12 is absent";
    const std::string split = PPE_SPLIT_ARC;
    checkSplit(split, split + ".map", std::string(PPE_QEMU_ARC) + " -L /usr/arc-linux-gnu -g {PORT} " + split, 3000,
        { "--interval", "2" });
}

namespace {

// Starts `argv` in a process group of its own, as a shell starts a job (gdbserver --attach
// interrupts a process group leader: it sends SIGINT to -pid).
pid_t startJob(std::vector<std::string> args)
{
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = -1;
    posix_spawn(&pid, argv[0], nullptr, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    return pid;
}

// The state letter of /proc/PID/stat: R, S, ... or t/T when stopped (traced or by a signal).
char processState(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const size_t paren = text.rfind(')');
    return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
}

} // namespace

// A job already running (a "three-day job"): gdbserver attaches to it, ppe-arc samples it for a
// while and detaches; the job runs on, not stopped, and its running loop was found. In all-stop
// mode, so that the 0x03 path to an attached process is the one tested (auto would choose non-stop:
// the launched test and arc_threads_test.cc cover that).
TEST(ArcSplit, GdbserverAttachedToARunningJob)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    const std::string split = PPE_SPLIT_NATIVE;
    const pid_t job = startJob({ split, "600000" });
    ASSERT_GT(job, 0);
    TempDir dir;
    std::string report;
    for (int attempt = 0, seconds = 2; attempt < 3 && inThree(moduleHits(report)) < kEnough; ++attempt, seconds *= 2) {
        const std::string port = std::to_string(freePort()), out = dir.file("attach.ppe");
        RunResult r = runProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", split, "-o", out,
            "--interval", "2", "--duration", std::to_string(seconds), "--mode", "all-stop", "--spawn",
            std::string(PPE_GDBSERVER) + " --attach :" + port + " " + std::to_string(job) });
        EXPECT_EQ(r.status, 0) << r.err;
        auto profile = ppe::readProfile(out);
        ASSERT_TRUE(profile.ok()) << (profile ? "" : profile.error().str());
        EXPECT_EQ(profile->endReason, "duration");
        EXPECT_EQ(profile->pid, uint64_t(job));
        EXPECT_EQ(profile->remoteInterrupt, "0x03");
        report = byFunction(split + ".map", out);
        // Detached: the job runs on (gdbserver may take a moment to let go of it).
        for (int i = 0; i < 200 && (processState(job) == 't' || processState(job) == 'T'); ++i)
            ::usleep(10000);
        EXPECT_NE(processState(job), 't');
        EXPECT_NE(processState(job), 'T');
        EXPECT_EQ(::waitpid(job, nullptr, WNOHANG), 0) << "the job ended";
    }
    ::kill(job, SIGKILL);
    ::waitpid(job, nullptr, 0);
    std::cout << report.substr(0, report.find("Program text"));
    EXPECT_GE(inThree(moduleHits(report)), kEnough);
    expectSplit(moduleHits(report));
}

namespace {

struct TextLine {
    int line = 0;
    uint64_t hits = 0;
    std::string bar, acc, source;
};

// The program-text lines with hits ("    14      207 XXXX...   51.8          sink += ...").
std::vector<TextLine> hitLines(const std::string& report)
{
    std::vector<TextLine> out;
    static const std::regex row(R"(^ +(\d+) +(\d+) (X*) +(\d+\.\d) +(.*)$)");
    std::istringstream lines(report);
    for (std::string line; std::getline(lines, line);) {
        std::smatch m;
        if (std::regex_match(line, m, row))
            out.push_back(TextLine { std::stoi(m[1]), std::stoull(m[2]), m[3], m[4], m[5] });
    }
    return out;
}

} // namespace

// End to end on ARC: an ARC HS build (-g -O2, map, listing) run under qemu-arc, sampled by ppe-arc,
// formatted by ppeout with its ARC map and ARC listing: the hot line is six()'s loop body, with
// the longest bar and its accumulated %; and the DWARF path (no map) gives the same functions.
TEST(ArcEndToEnd, HotLineFromTheArcListing)
{
    if (!executable(PPE_QEMU_ARC) || !executable(PPE_SPLIT_ARC))
        GTEST_SKIP() << "qemu-arc (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH) or arc-linux-gnu-gcc-12 is absent";
    const std::string split = PPE_SPLIT_ARC;
    TempDir dir;
    const std::string out = dir.file("split.ppe");
    std::string report;
    for (int attempt = 0, ms = 3000; attempt < 3; ++attempt, ms *= 2) {
        RunResult r = sample(split,
            std::string(PPE_QEMU_ARC) + " -L /usr/arc-linux-gnu -g {PORT} " + split + " " + std::to_string(ms) + " "
                + kRound,
            out, { "--interval", "2" });
        ASSERT_EQ(r.status, 0) << r.err;
        RunResult formatted = runProgram({ PPEOUT, split + ".map", out, "-", split + ".lis" });
        ASSERT_EQ(formatted.status, 0) << formatted.err;
        report = formatted.out;
        auto profile = ppe::readProfile(out);
        ASSERT_TRUE(profile.ok());
        if (profile->inRange() >= kEnough)
            break;
    }
    std::cout << report;
    EXPECT_NE(report.find("Remote target arc:ARCv2"), std::string::npos);
    EXPECT_NE(report.find("lines from the listing"), std::string::npos);
    const std::vector<TextLine> lines = hitLines(report);
    ASSERT_FALSE(lines.empty()) << "no program text with hits";
    auto hot = std::max_element(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.hits < b.hits; });
    EXPECT_NE(hot->source.find("/* 60 % of the time */"), std::string::npos) << "hot line " << hot->line;
    for (const TextLine& l : lines)
        EXPECT_LE(l.bar.size(), hot->bar.size());
    for (size_t i = 1; i < lines.size(); ++i) // accumulated in file order
        EXPECT_GE(std::stod(lines[i].acc), std::stod(lines[i - 1].acc));
    EXPECT_GE(std::stod(lines.back().acc), 90.0);
    // --asm: the listing's own ARC code under each line, its hits adding up to the line's (exactly:
    // from the CSV of the same report), the hot line's among them.
    const RunResult csv = runProgram({ PPEOUT, "--format", "csv", "--asm", split + ".map", out, "-", split + ".lis" });
    ASSERT_EQ(csv.status, 0) << csv.err;
    const std::vector<CsvRow> rows = csvRows(csv.out);
    EXPECT_GE(expectInstructionsSumToTheirLines(rows), 2u) << csv.out;
    const bool hotHasInstructions = std::any_of(rows.begin(), rows.end(), [&](const CsvRow& r) {
        return r["kind"] == "instruction" && r["line"] == std::to_string(hot->line) && r.hits() > 0;
    });
    EXPECT_TRUE(hotHasInstructions) << "no instruction with hits under line " << hot->line << "\n" << csv.out;
    // No map: units and functions from the ARC executable's DWARF (LLVM reads it without an ARC target).
    RunResult dwarf = runProgram({ PPEOUT, "--by", "function", out, "-" });
    ASSERT_EQ(dwarf.status, 0) << dwarf.err;
    EXPECT_NE(dwarf.out.find("lines from the DWARF line table"), std::string::npos);
    expectSplit(moduleHits(dwarf.out));
    const std::vector<TextLine> dwarfLines = hitLines(dwarf.out);
    ASSERT_FALSE(dwarfLines.empty()) << dwarf.out;
    auto dwarfHot
        = std::max_element(dwarfLines.begin(), dwarfLines.end(), [](auto& a, auto& b) { return a.hits < b.hits; });
    EXPECT_EQ(dwarfHot->line, hot->line);
}

namespace {

// CPU seconds (user + system) the process has used, from /proc/PID/stat; -1 when it is gone.
double cpuSeconds(pid_t pid)
{
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const size_t paren = text.rfind(')');
    if (paren == std::string::npos)
        return -1;
    std::istringstream fields(text.substr(paren + 2));
    std::string field;
    unsigned long utime = 0, stime = 0;
    for (int i = 3; i <= 15 && fields >> field; ++i) {
        if (i == 14)
            utime = std::stoul(field);
        if (i == 15)
            stime = std::stoul(field);
    }
    return double(utime + stime) / double(::sysconf(_SC_CLK_TCK));
}

} // namespace

namespace {

// Starts gdbserver with split on `port` and returns the program's pid once gdbserver names it.
pid_t startUnderGdbserver(const std::string& port, Running& server)
{
    server = startProgram({ PPE_GDBSERVER, ":" + port, PPE_SPLIT_NATIVE, "60000" });
    static const std::regex created(R"(pid = (\d+))");
    for (int i = 0; i < 1000; ++i, ::usleep(10000)) {
        std::smatch m;
        const std::string said = readFile(server.errPath) + readFile(server.outPath);
        if (std::regex_search(said, m, created))
            return pid_t(std::stol(m[1]));
    }
    return 0;
}

// Waits until `pid` has used `seconds` of CPU: it has been running under sampling a while.
void waitForCpu(pid_t pid, double seconds)
{
    for (int i = 0; i < 3000 && cpuSeconds(pid) < seconds; ++i)
        ::usleep(10000);
}

} // namespace

// Ctrl-C to ppe-arc: it stops sampling, detaches, writes the profile; the program runs on.
TEST(ArcSample, CtrlCDetachesAndTheProgramRunsOn)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    TempDir dir;
    const std::string port = std::to_string(freePort()), out = dir.file("interrupted.ppe");
    Running server;
    const pid_t program = startUnderGdbserver(port, server);
    ASSERT_GT(program, 0) << "gdbserver did not start the program";
    Running arc = startProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", PPE_SPLIT_NATIVE, "-o",
        out, "--interval", "2" });
    waitForCpu(program, 0.3);
    ::kill(arc.pid, SIGINT);
    RunResult r = waitProgram(arc);
    EXPECT_EQ(r.status, 0) << r.err;
    auto profile = ppe::readProfile(out);
    ASSERT_TRUE(profile.ok()) << (profile ? "" : profile.error().str());
    EXPECT_EQ(profile->endReason, "interrupted");
    EXPECT_GT(profile->total, 0u);
    // The program runs on: it keeps using CPU, it is not stopped.
    const double before = cpuSeconds(program);
    waitForCpu(program, before + 0.2);
    EXPECT_GE(cpuSeconds(program), before + 0.2) << "the program does not run after the detach";
    EXPECT_NE(processState(program), 't');
    ::kill(program, SIGKILL);
    waitProgram(server);
}

// The server dies while ppe-arc samples: a one-line error, exit status 1, and a .ppe of the
// samples taken so far whose end-reason and remote-error say so.
TEST(ArcBadPeer, ServerKilledWhileSampling)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    TempDir dir;
    const std::string port = std::to_string(freePort()), out = dir.file("killed.ppe");
    Running server;
    const pid_t program = startUnderGdbserver(port, server);
    ASSERT_GT(program, 0) << "gdbserver did not start the program";
    Running arc = startProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", PPE_SPLIT_NATIVE, "-o",
        out, "--interval", "2" });
    waitForCpu(program, 0.3);
    ::kill(server.pid, SIGKILL);
    waitProgram(server);
    RunResult r = waitProgram(arc);
    EXPECT_EQ(r.status, 1);
    // The last line: the error, naming the server (closed, or reset when data was in flight).
    const std::string prefix = "ppe-arc: error: ";
    const size_t last = r.err.rfind('\n', r.err.size() - 2) + 1;
    const std::string error = r.err.substr(last, r.err.size() - last - 1);
    EXPECT_EQ(error.rfind(prefix + "127.0.0.1:" + port + ": ", 0), 0u) << r.err;
    EXPECT_TRUE(error.find("connection closed by the server") != std::string::npos
        || error.find("Connection reset by peer") != std::string::npos)
        << error;
    auto profile = ppe::readProfile(out);
    ASSERT_TRUE(profile.ok()) << (profile ? "" : profile.error().str());
    EXPECT_EQ(profile->endReason, "peer error");
    EXPECT_EQ(prefix + profile->remoteError, error);
    EXPECT_GT(profile->total, 0u);
    EXPECT_EQ(profile->total, profile->intrusionStops);
    RunResult report = runProgram({ PPEOUT, out, "-" });
    EXPECT_EQ(report.status, 0) << report.err;
    EXPECT_NE(report.out.find("Sampling ended early: 127.0.0.1:" + port), std::string::npos) << report.out;
}

// Shared libraries from gdbserver's SVR4 library list: examples/mathlib spends its time in libm;
// its samples become object and object-hit records, and ppeout names libm's functions.
TEST(ArcSharedLibraries, LibmFromTheServersLibraryList)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver is not installed (Debian: gdbserver)";
    TempDir dir;
    const std::string out = dir.file("mathlib.ppe");
    std::optional<ppe::Profile> profile;
    for (int attempt = 0, millions = 40; attempt < 3; ++attempt, millions *= 2) {
        RunResult r = sample(PPE_MATHLIB,
            std::string(PPE_GDBSERVER) + " :{PORT} " + PPE_MATHLIB + " " + std::to_string(millions), out,
            { "--interval", "2" });
        ASSERT_EQ(r.status, 0) << r.err;
        auto read = ppe::readProfile(out);
        ASSERT_TRUE(read.ok()) << (read ? "" : read.error().str());
        profile = *read;
        if (profile->total >= kEnough)
            break;
    }
    ASSERT_FALSE(profile->objects.empty());
    const ppe::SharedObject& top = *std::max_element(
        profile->objects.begin(), profile->objects.end(), [](auto& a, auto& b) { return a.hits < b.hits; });
    EXPECT_NE(top.path.find("libm.so"), std::string::npos) << top.path;
    EXPECT_FALSE(top.buildId.empty());
    EXPECT_GT(double(top.hits), 0.5 * double(profile->total)) << top.hits << " of " << profile->total;
    EXPECT_EQ(profile->counts[ppe::kShared], [&] {
        uint64_t n = 0;
        for (const auto& o : profile->objects)
            n += o.hits;
        return n;
    }());
    RunResult report = runProgram({ PPEOUT, out, "-" });
    ASSERT_EQ(report.status, 0) << report.err;
    EXPECT_NE(report.out.find("SHARED OBJECTS"), std::string::npos);
    EXPECT_NE(report.out.find("libm.so.6"), std::string::npos);
    EXPECT_TRUE(report.out.find("sin") != std::string::npos || report.out.find("pow") != std::string::npos)
        << report.out;
}
