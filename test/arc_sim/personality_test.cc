// Each personality of the simulated ARC target (a STAND-IN, README.md) as the real client sees it,
// against what the real servers did in test/data/gdb-remote/: OpenOCD answers register reads
// while the core runs; qemu-arc numbers pc 36, leaves it out of `g`, refuses `M` to code with E14,
// has no `qRcmd` and is stopped from outside; gdbserver has no `p`, writes code with `X`, answers
// `monitor help`, stops on 0x03 and reports the end as an exit. And ppe-arc-sim, the program.
#include "sim_client.h"

#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/probe.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace ppe::arc::sim;
using ppe::gdbremote::StopReply;

namespace {

std::string journalPath(const std::string& suffix)
{
    const std::string path = ::testing::TempDir() + "arc_sim_personality_" + suffix + ".journal";
    std::remove(path.c_str()); // one an earlier run of this test left
    return path;
}

#define SKIP_WITHOUT_ARC_IMAGE()                                                                                       \
    if (std::string(PPE_ARC_SIM_CALLS).empty())                                                                        \
    GTEST_SKIP() << "arc-linux-gnu-gcc-12 was not found at configure time: no ARC image for the simulated target"

uint32_t machinePc(SimClient& c)
{
    std::lock_guard<std::mutex> lock(c.target->mutex());
    return c.target->machine().pc();
}

TEST(SimPersonality, OpenocdReadsThePcWhileTheCoreRuns)
{
    SKIP_WITHOUT_ARC_IMAGE();
    auto c = attachSim({ Personality::OpenOcd, true, 5 }, PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, journalPath("openocd"));
    ASSERT_TRUE(c->error.empty()) << c->error;
    ASSERT_TRUE(c->control->resume());
    for (int read = 0; read < 3; ++read) { // raw `p 64` while running: the control layer refuses it
        ppe::Result<std::string> pc = c->session->request("p40");
        ASSERT_TRUE(pc) << pc.error().str();
        const std::optional<uint64_t> value = ppe::gdbremote::registerValue(*ppe::gdbremote::fromHex(*pc), false);
        ASSERT_TRUE(value) << *pc;
        // Inside a function of the tree, or still at `__start` (the core may not have run yet).
        EXPECT_TRUE(c->target->machine().functionAt(uint32_t(*value)) || *value == c->target->machine().startAddress())
            << std::hex << *value;
    }
    EXPECT_TRUE(c->control->running());
    ppe::Result<StopReply> stop = c->control->stop();
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_EQ(stop->code, 2);
    EXPECT_EQ(c->server->stats().readsWhileRunning, 3u);
    EXPECT_EQ(*c->access->readRegister("pc"), machinePc(*c));
}

TEST(SimPersonality, QemuAsQemuArc)
{
    SKIP_WITHOUT_ARC_IMAGE();
    auto c = attachSim({ Personality::Qemu, true, 50 }, PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, journalPath("qemu"));
    ASSERT_TRUE(c->error.empty()) << c->error;
    EXPECT_FALSE(c->session->ackMode() == false) << "qemu-arc offers no QStartNoAckMode";
    EXPECT_EQ(c->description->pc()->regnum, 36u);
    EXPECT_EQ(c->session->readRegisters()->size(), 2 * 144u); // r0..pcl: `g` stops before pc
    EXPECT_EQ(*c->access->readRegister("pc"), c->target->image().entry); // __start
    ppe::gdbremote::Status code = c->access->writeMemory(c->address("leaf"), std::string(2, '\0'));
    ASSERT_FALSE(code);
    EXPECT_NE(code.error().message.find("E14"), std::string::npos) << code.error().str();
    EXPECT_TRUE(c->access->writeMemory(0x5fff0000, "data")); // data is written, with `M`
    EXPECT_FALSE(c->access->monitor("help"));
    // 0x03 is not read while the guest runs: ppe-arc knows qemu by its queries and stops it from
    // outside (SIGINT to the server it started; here the server's own entry point for that).
    c->control->interruptByteIgnored();
    ASSERT_TRUE(c->control->resume());
    ppe::Result<StopReply> stop = c->control->stop();
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_EQ(stop->code, 2);
    EXPECT_EQ(c->control->means(), ppe::gdbremote::StopMeans::ServerSignal);
    EXPECT_EQ(*c->access->readRegister("pc"), machinePc(*c));
    ASSERT_TRUE(c->access->insertBreakpoint(c->address("fact"), 2));
    stop = c->runToStop();
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_EQ(*c->access->readRegister("pc"), c->address("fact"));
    ASSERT_TRUE(c->access->undoAll());
    stop = c->runToStop();
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_TRUE(stop->ended());
}

TEST(SimPersonality, GdbserverAsGdbserver)
{
    SKIP_WITHOUT_ARC_IMAGE();
    auto c = attachSim(
        { Personality::Gdbserver, true, 50 }, PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, journalPath("gdbserver"));
    ASSERT_TRUE(c->error.empty()) << c->error;
    EXPECT_FALSE(c->session->ackMode());
    EXPECT_EQ(*c->access->readRegister("pc"), c->target->image().entry); // __start
    EXPECT_EQ(c->access->capabilities().readRegister, false); // `p` is empty: read from `g`
    const uint32_t leaf = c->address("leaf");
    const std::string original = *c->access->readMemory(leaf, 2);
    ASSERT_TRUE(c->access->writeMemory(leaf, "\x01\x02"));
    EXPECT_EQ(*c->access->readMemory(leaf, 2), "\x01\x02");
    EXPECT_EQ(c->access->capabilities().writeMemoryX, true);
    ppe::Result<std::string> help = c->access->monitor("help");
    ASSERT_TRUE(help) << help.error().str();
    EXPECT_EQ(help->rfind("The following monitor commands are supported:", 0), 0u) << *help;
    ASSERT_TRUE(c->control->resume());
    ppe::Result<StopReply> stop = c->control->stop();
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_EQ(c->control->means(), ppe::gdbremote::StopMeans::InterruptByte);
    ASSERT_TRUE(c->access->undoAll());
    EXPECT_EQ(*c->access->readMemory(leaf, 2), original);
    stop = c->runToStop();
    ASSERT_TRUE(stop) << stop.error().str();
    EXPECT_TRUE(stop->ended());
    EXPECT_EQ(stop->process, "4d2");
}

// The probing session the live tests run against gdbserver and qemu-arc (test/unit/gdbremote/
// live_test.cc), against the matching personality, with the same expectations.
ppe::gdbremote::ProbeResult probe(Personality personality, const std::string& suffix)
{
    auto c = attachSim({ personality, true, 1 }, PPE_ARC_SIM_CALLS, PPE_ARC_SIM_TREE, journalPath(suffix));
    EXPECT_TRUE(c->error.empty()) << c->error;
    if (!c->error.empty())
        return {};
    ppe::gdbremote::ProbeOptions options;
    options.runFor = std::chrono::milliseconds(20);
    options.interruptWait = std::chrono::milliseconds(300);
    options.fallbackInterrupt = [server = c->server.get()]() -> ppe::gdbremote::Status {
        server->interruptFromOutside();
        return std::monostate {};
    };
    ppe::Result<ppe::gdbremote::ProbeResult> result = ppe::gdbremote::probeSession(*c->session, options);
    EXPECT_TRUE(result) << result.error().str();
    if (!result)
        return {};
    EXPECT_FALSE(result->exit) << "the machine ended before the probe did";
    EXPECT_EQ(result->pcs.size(), 4u);
    if (!result->pcs.empty()) {
        EXPECT_EQ(result->pcs.front(), c->target->image().entry); // the first stop: at __start
    }
    for (size_t i = 1; i < result->pcs.size(); ++i)
        EXPECT_TRUE(c->target->machine().functionAt(uint32_t(result->pcs[i]))) << std::hex << result->pcs[i];
    EXPECT_EQ(result->description.architecture, "arc:ARCv2");
    return *result;
}

TEST(SimPersonality, TheLiveProbeSeesWhatTheRealServersShowed)
{
    SKIP_WITHOUT_ARC_IMAGE();
    using ppe::gdbremote::PcStrategy;
    const ppe::gdbremote::ProbeResult qemu = probe(Personality::Qemu, "probe_qemu");
    EXPECT_EQ(qemu.pc.regnum, 36u);
    EXPECT_EQ(qemu.pcProbe.strategy, PcStrategy::RegisterPacket) << "qemu-arc's g stops before pc";
    EXPECT_FALSE(qemu.pcProbe.allRegisters);
    EXPECT_EQ(qemu.interruptByte, std::optional<bool>(false)) << "qemu-arc ignores 0x03 while running";
    EXPECT_TRUE(qemu.ackMode) << "qemu offers no QStartNoAckMode";
    const ppe::gdbremote::ProbeResult gdbserver = probe(Personality::Gdbserver, "probe_gdbserver");
    EXPECT_EQ(gdbserver.pc.regnum, 34u);
    EXPECT_FALSE(gdbserver.pcProbe.registerPacket) << "gdbserver 13 has no `p`";
    EXPECT_EQ(gdbserver.interruptByte, std::optional<bool>(true));
    EXPECT_FALSE(gdbserver.ackMode);
    const ppe::gdbremote::ProbeResult openocd = probe(Personality::OpenOcd, "probe_openocd");
    EXPECT_EQ(openocd.pc.regnum, 64u);
    EXPECT_EQ(openocd.pcProbe.strategy, PcStrategy::RegisterPacket);
    EXPECT_EQ(openocd.interruptByte, std::optional<bool>(true));
    EXPECT_FALSE(openocd.ackMode);
}

} // namespace
