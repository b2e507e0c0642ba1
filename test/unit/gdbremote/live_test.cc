// The probing session against real servers: gdbserver (launched and attached), qemu-aarch64 and
// qemu-arc, each running loop.c; the PC must land in the program's text, and after the detach the
// program must run to its normal end (status 42). A software breakpoint through TargetAccess stops
// each server's program at the address with the memory unchanged (the issue 36 claim for qemu-arc).
#include "local_server.h"
#include "ppe/gdbremote/probe.h"
#include "ppe/gdbremote/target_access.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace ppe::gdbremote;
using ppe::testing::executable;
using ppe::testing::freePort;

namespace {

// Starts argv with output discarded; in a session of its own when `setsid`.
pid_t spawn(std::vector<std::string> args, bool setsid = false)
{
    std::vector<char*> argv;
    for (auto& a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, setsid ? POSIX_SPAWN_SETSID : 0);
    pid_t pid = -1;
    posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return pid;
}

int exitStatus(pid_t pid)
{
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) {
        ADD_FAILURE() << "cannot wait for " << pid << ": " << std::strerror(errno);
        return -1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct TextRange {
    std::uint64_t low = ~0ull, high = 0;
    bool contains(std::uint64_t pc) const { return pc >= low && pc < high; }
};

// The span of the program's own functions, from `nm -S`.
TextRange textOf(const std::string& nm, const std::string& program)
{
    TextRange range;
    FILE* out = ::popen((nm + " -S --defined-only " + program).c_str(), "r");
    char line[512];
    while (out && std::fgets(line, sizeof line, out)) {
        unsigned long long addr = 0, size = 0;
        char type = 0;
        if (std::sscanf(line, "%llx %llx %c", &addr, &size, &type) == 3 && (type == 'T' || type == 't')) {
            range.low = std::min<std::uint64_t>(range.low, addr);
            range.high = std::max<std::uint64_t>(range.high, addr + size);
        }
    }
    if (out)
        ::pclose(out);
    return range;
}

ppe::Result<Session> connectSoon(int port)
{
    auto session = Session::connect("127.0.0.1:" + std::to_string(port), std::chrono::milliseconds(2000));
    for (int i = 0; i < 100 && !session; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        session = Session::connect("127.0.0.1:" + std::to_string(port), std::chrono::milliseconds(2000));
    }
    return session;
}

std::function<Status()> sigint(pid_t pid)
{
    return [pid]() -> Status {
        ::kill(pid, SIGINT);
        return std::monostate {};
    };
}

// Probes the server on `port` and checks what every server must give.
ProbeResult probe(
    int port, const std::string& pcName, unsigned regnum, const TextRange& text, ProbeOptions options = {})
{
    auto session = connectSoon(port);
    EXPECT_TRUE(session.ok()) << (session ? "" : session.error().str());
    if (!session)
        return {};
    options.stops = 4;
    options.runFor = std::chrono::milliseconds(50);
    auto result = probeSession(*session, options);
    EXPECT_TRUE(result.ok()) << (result ? "" : result.error().str());
    if (!result)
        return {};
    std::cout << result->report();
    EXPECT_EQ(result->pc.name, pcName);
    EXPECT_EQ(result->pc.regnum, regnum);
    EXPECT_FALSE(result->exit) << "the program ended before the probe did";
    int inText = 0;
    for (std::size_t i = 1; i < result->pcs.size(); ++i)
        inText += text.contains(result->pcs[i]);
    // A stop may land in libc's clock_gettime now and then; most land in work() or main().
    EXPECT_GE(inText, 3) << "text 0x" << std::hex << text.low << "-0x" << text.high;
    return *result;
}

pid_t processOf(const StopReply& stop) { return static_cast<pid_t>(std::stol(stop.thread.substr(1), nullptr, 16)); }

class Live : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        // gdbserver's children outlive it after a detach: let them be ours to reap.
        ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    }
};

} // namespace

TEST_F(Live, GdbserverLaunched)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    int port = freePort();
    std::string done = ::testing::TempDir() + "ppe-arc-loop-done-" + std::to_string(::getpid());
    std::remove(done.c_str());
    pid_t server = spawn({ PPE_GDBSERVER, "--once", ":" + std::to_string(port), PPE_LOOP_NATIVE, "2000", done });
    auto result = probe(port, "rip", 16, textOf("nm", PPE_LOOP_NATIVE));
    EXPECT_EQ(result.pcProbe.strategy, PcStrategy::AllRegisters) << "gdbserver 13 has no `p` on x86-64";
    EXPECT_EQ(result.interruptByte, std::optional<bool>(true));
    EXPECT_FALSE(result.ackMode);
    // gdbserver reaps a program it launched (server.cc handle_detach: join_inferior) and exits
    // when it ends: the program says how it ended in `done`.
    EXPECT_EQ(exitStatus(server), 0);
    std::ifstream in(done);
    std::string status;
    std::getline(in, status);
    EXPECT_EQ(status, "exit 42") << done;
    std::remove(done.c_str());
}

TEST_F(Live, GdbserverAttached)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    // A session leader, as a program started from an interactive shell is: gdbserver interrupts
    // an attached process by SIGINT to its process group.
    pid_t program = spawn({ PPE_LOOP_NATIVE, "3000" }, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    int port = freePort();
    pid_t server = spawn({ PPE_GDBSERVER, "--once", "--attach", ":" + std::to_string(port), std::to_string(program) });
    auto result = probe(port, "rip", 16, textOf("nm", PPE_LOOP_NATIVE));
    EXPECT_EQ(processOf(result.firstStop), program);
    EXPECT_EQ(exitStatus(server), 0);
    EXPECT_EQ(exitStatus(program), 42);
}

TEST_F(Live, QemuAarch64)
{
    if (!executable(PPE_QEMU_AARCH64) || !executable(PPE_LOOP_AARCH64))
        GTEST_SKIP() << "qemu-aarch64 or aarch64-linux-gnu-gcc not found (Debian: qemu-user gcc-aarch64-linux-gnu)";
    int port = freePort();
    pid_t qemu = spawn(
        { PPE_QEMU_AARCH64, "-L", "/usr/aarch64-linux-gnu", "-g", std::to_string(port), PPE_LOOP_AARCH64, "4000" });
    ProbeOptions options;
    options.fallbackInterrupt = sigint(qemu);
    auto result = probe(port, "pc", 32, textOf(PPE_NM_AARCH64, PPE_LOOP_AARCH64), options);
    EXPECT_EQ(result.pcProbe.strategy, PcStrategy::RegisterPacket);
    EXPECT_TRUE(result.ackMode) << "qemu offers no QStartNoAckMode";
    EXPECT_EQ(exitStatus(qemu), 42);
}

TEST_F(Live, QemuArc)
{
    std::string qemuArc = std::getenv("QEMU_ARC") ? std::getenv("QEMU_ARC") : PPE_QEMU_ARC;
    if (!executable(qemuArc))
        GTEST_SKIP() << "qemu-arc not found ($QEMU_ARC, or test/README.md: -DPPE_QEMU_ARC, PATH, ../shared/tools)";
    if (!executable(PPE_LOOP_ARC))
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 not found (Debian: gcc-12-arc-linux-gnu libc6-dev-arc-cross)";
    int port = freePort();
    pid_t qemu = spawn({ qemuArc, "-L", "/usr/arc-linux-gnu", "-g", std::to_string(port), PPE_LOOP_ARC, "4000" });
    ProbeOptions options;
    options.fallbackInterrupt = sigint(qemu);
    auto result = probe(port, "pc", 36, textOf(PPE_NM_ARC, PPE_LOOP_ARC), options);
    EXPECT_EQ(result.description.architecture, "arc:ARCv2");
    EXPECT_EQ(result.pcProbe.strategy, PcStrategy::RegisterPacket) << "qemu-arc's g stops before pc";
    EXPECT_FALSE(result.pcProbe.allRegisters);
    EXPECT_EQ(result.interruptByte, std::optional<bool>(false)) << "qemu-arc ignores 0x03 while running";
    EXPECT_EQ(exitStatus(qemu), 42);
}

TEST_F(Live, GdbserverNonStop)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    int port = freePort();
    pid_t server = spawn({ PPE_GDBSERVER, "--once", ":" + std::to_string(port), PPE_LOOP_NATIVE, "2000" });
    auto session = connectSoon(port);
    ASSERT_TRUE(session.ok()) << session.error().str();
    auto features = session->negotiate();
    ASSERT_TRUE(features.ok()) << features.error().str();
    ASSERT_TRUE(features->nonStop);
    // `?` and the description first, as GDB does: gdbserver 13 asserts (tdesc.cc:195,
    // tdesc_get_features_xml) when target.xml is asked for before `?` has chosen a thread, and
    // drops the connection.
    ASSERT_TRUE(session->haltReason().ok());
    auto tdesc = session->readTargetDescription();
    ASSERT_TRUE(tdesc.ok()) << tdesc.error().str();
    ASSERT_TRUE(session->enableNonStop().ok());
    auto first = session->haltReason();
    ASSERT_TRUE(first.ok()) << first.error().str();
    PcReader reader(*session, *tdesc->pc());
    ASSERT_TRUE(reader.probe().ok());
    TextRange text = textOf("nm", PPE_LOOP_NATIVE);
    int inText = 0;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(session->resume().ok());
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ASSERT_TRUE(session->interrupt().ok());
        auto stop = session->waitForStop(std::chrono::milliseconds(5000));
        ASSERT_TRUE(stop.ok()) << stop.error().str();
        auto pc = reader.read();
        ASSERT_TRUE(pc.ok()) << pc.error().str();
        inText += text.contains(*pc);
    }
    EXPECT_GE(inText, 2);
    EXPECT_GE(session->stats().notifications, 3u);
    auto detached = session->detach();
    EXPECT_TRUE(detached.ok()) << detached.error().str();
    EXPECT_EQ(exitStatus(server), 0);
}

// QEMU's stubs answer `p` only once the description was read (empty before): probe after it.
static void expectPOnlyAfterDescription(
    const std::string& qemu, const std::string& sysroot, const std::string& program, unsigned pc)
{
    int port = freePort();
    pid_t server = spawn({ qemu, "-L", sysroot, "-g", std::to_string(port), program, "2000" });
    auto session = connectSoon(port);
    ASSERT_TRUE(session.ok()) << session.error().str();
    ASSERT_TRUE(session->negotiate().ok());
    ASSERT_TRUE(session->haltReason().ok());
    auto before = session->readRegister(pc);
    ASSERT_TRUE(before.ok()) << before.error().str();
    EXPECT_EQ(*before, "");
    ASSERT_TRUE(session->readTargetDescription().ok());
    auto after = session->readRegister(pc);
    ASSERT_TRUE(after.ok()) << after.error().str();
    EXPECT_NE(*after, "");
    EXPECT_TRUE(session->kill().ok());
    EXPECT_EQ(exitStatus(server), 0) << "QEMU's user-mode stub ends the emulator with exit(0) on `k`";
}

TEST_F(Live, QemuAarch64AnswersPOnlyAfterTheDescription)
{
    if (!executable(PPE_QEMU_AARCH64) || !executable(PPE_LOOP_AARCH64))
        GTEST_SKIP() << "qemu-aarch64 or aarch64-linux-gnu-gcc not found (Debian: qemu-user gcc-aarch64-linux-gnu)";
    expectPOnlyAfterDescription(PPE_QEMU_AARCH64, "/usr/aarch64-linux-gnu", PPE_LOOP_AARCH64, 32);
}

TEST_F(Live, QemuArcAnswersPOnlyAfterTheDescription)
{
    std::string qemuArc = std::getenv("QEMU_ARC") ? std::getenv("QEMU_ARC") : PPE_QEMU_ARC;
    if (!executable(qemuArc) || !executable(PPE_LOOP_ARC))
        GTEST_SKIP() << "qemu-arc or arc-linux-gnu-gcc-12 not found ($QEMU_ARC, or test/README.md)";
    expectPOnlyAfterDescription(qemuArc, "/usr/arc-linux-gnu", PPE_LOOP_ARC, 36);
}

// The address of `symbol` in `program` (nm), 0 when absent.
static std::uint64_t symbolAt(const std::string& nm, const std::string& program, const std::string& symbol)
{
    FILE* out = ::popen((nm + " --defined-only " + program).c_str(), "r");
    char line[512], name[256];
    std::uint64_t found = 0;
    unsigned long long addr = 0;
    char type = 0;
    while (out && std::fgets(line, sizeof line, out))
        if (std::sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 && symbol == name)
            found = addr;
    if (out)
        ::pclose(out);
    return found;
}

static std::string littleEndian(std::uint64_t value, std::size_t size)
{
    std::string out;
    for (std::size_t i = 0; i < size; ++i)
        out += char((value >> (8 * i)) & 0xff);
    return out;
}

// A software breakpoint (Z0) at work(), which main() calls again and again: the memory there
// reads as before while it is in, the target runs into it and stops with the PC at work(), and
// once it is undone the program runs to its normal end (expectRanToItsEnd).
// `pcPast`: how far past the breakpoint the stop leaves the PC (x86: after the int3; GDB sets it
// back before it resumes, gdbarch decr_pc_after_break), 0 elsewhere.
static void expectBreakpointStopsAtWork(
    int port, const std::string& nm, const std::string& program, unsigned kind, unsigned pcPast, ControlOptions options)
{
    const std::uint64_t work = symbolAt(nm, program, "work");
    ASSERT_NE(work, 0u) << nm << " found no work in " << program;
    auto session = connectSoon(port);
    ASSERT_TRUE(session.ok()) << session.error().str();
    ASSERT_TRUE(session->negotiate().ok());
    ASSERT_TRUE(session->haltReason().ok());
    auto tdesc = session->readTargetDescription();
    ASSERT_TRUE(tdesc.ok() && tdesc->pc()) << (tdesc ? "no pc" : tdesc.error().str());
    TargetControl control(*session, options);
    UndoJournal journal(::testing::TempDir() + "ppe-live-" + std::to_string(::getpid()) + ".undo", "live");
    TargetAccess access(control, *tdesc, false, &journal);
    auto before = access.readMemory(work, 4);
    ASSERT_TRUE(before.ok()) << before.error().str();
    ASSERT_TRUE(access.insertBreakpoint(work, kind).ok());
    auto during = access.readMemory(work, 4);
    ASSERT_TRUE(during.ok()) << during.error().str();
    EXPECT_EQ(*during, *before) << "the breakpoint shows in memory";
    ASSERT_TRUE(control.resume().ok());
    auto stop = control.ownStop();
    ASSERT_TRUE(stop.ok()) << stop.error().str();
    EXPECT_FALSE(stop->ended());
    EXPECT_EQ(stop->code, SIGTRAP);
    auto pc = access.readRegister(tdesc->pc()->name);
    ASSERT_TRUE(pc.ok()) << pc.error().str();
    EXPECT_EQ(*pc, work + pcPast) << std::hex << "pc 0x" << *pc << ", work() at 0x" << work;
    ASSERT_TRUE(access.undoAll().ok());
    if (pcPast) { // back to the start of the instruction the int3 stood for
        ASSERT_TRUE(access.writeRegisterBytes(*tdesc->pc(), littleEndian(work, tdesc->pc()->bytes())).ok());
    }
    EXPECT_TRUE(journal.empty());
    ASSERT_TRUE(control.detach().ok());
}

// Waits for the server, which ends with the program once the session is closed (QEMU waits for
// the acknowledgement of its exit reply while the connection is open), and reads `done`.
static void expectRanToItsEnd(pid_t server, const std::string& done)
{
    exitStatus(server);
    std::ifstream in(done);
    std::string status;
    std::getline(in, status);
    EXPECT_EQ(status, "exit 42") << "the program did not run to its end";
    std::remove(done.c_str());
}

static std::string doneFile(const char* name)
{
    std::string done = ::testing::TempDir() + "ppe-arc-" + name + "-" + std::to_string(::getpid());
    std::remove(done.c_str());
    return done;
}

TEST_F(Live, QemuArcBreakpointStopsAtTheAddressMemoryUnchanged)
{
    std::string qemuArc = std::getenv("QEMU_ARC") ? std::getenv("QEMU_ARC") : PPE_QEMU_ARC;
    if (!executable(qemuArc) || !executable(PPE_LOOP_ARC))
        GTEST_SKIP() << "qemu-arc or arc-linux-gnu-gcc-12 not found ($QEMU_ARC, or test/README.md)";
    int port = freePort();
    const std::string done = doneFile("qemu-arc-break");
    pid_t qemu = spawn({ qemuArc, "-L", "/usr/arc-linux-gnu", "-g", std::to_string(port), PPE_LOOP_ARC, "1000", done });
    ControlOptions options;
    options.fallbackInterrupt = sigint(qemu);
    expectBreakpointStopsAtWork(port, PPE_NM_ARC, PPE_LOOP_ARC, 2, 0, options);
    if (HasFatalFailure()) // a server nobody detached from may wait for ever
        ::kill(qemu, SIGKILL);
    expectRanToItsEnd(qemu, done);
}

TEST_F(Live, GdbserverBreakpointStopsAtTheAddressMemoryUnchanged)
{
    if (!executable(PPE_GDBSERVER))
        GTEST_SKIP() << "gdbserver not found (Debian: gdbserver)";
    int port = freePort();
    const std::string done = doneFile("gdbserver-break");
    pid_t server = spawn({ PPE_GDBSERVER, "--once", ":" + std::to_string(port), PPE_LOOP_NATIVE, "1000", done });
    expectBreakpointStopsAtWork(port, "nm", PPE_LOOP_NATIVE, 1, 1, {});
    if (HasFatalFailure()) // a server nobody detached from may wait for ever
        ::kill(server, SIGKILL);
    expectRanToItsEnd(server, done);
}
