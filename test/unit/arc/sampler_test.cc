// The sampling loop of ppe-arc (sampler.h) and its profile (remote_profile.h) over a fake peer:
// a target that ends, Ctrl-C, a server that ignores 0x03, and bad peers (disconnection, garbage, a
// wrong answer, a stall) that end sampling with a one-line error and the samples so far.
#include "fake_peer.h"
#include "ppe/arc/remote_profile.h"
#include "ppe/arc/sampler.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/profile/profile_reader.h"

#include <elf.h>
#include <gtest/gtest.h>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;
using namespace ppe::arc;
using Script = std::vector<TranscriptLine>;

namespace {

TranscriptLine client(const std::string& packet) { return { '>', frame(packet) }; }
TranscriptLine server(const std::string& packet) { return { '<', frame(packet) }; }
TranscriptLine clientRaw(const std::string& raw) { return { '>', raw }; }
TranscriptLine serverRaw(const std::string& raw) { return { '<', raw }; }

Script operator+(Script a, const Script& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// No-ack negotiation, then the PC probe: `p1` and `g` both give pc = 0x1000 (32 bits, regnum 1).
Script opening()
{
    return { client("qSupported:multiprocess+;vContSupported+;xmlRegisters=i386"), serverRaw("+"),
        server("PacketSize=400;QStartNoAckMode+"), clientRaw("+"), client("QStartNoAckMode"), serverRaw("+"),
        server("OK"), clientRaw("+"), client("p1"), server("00100000"), client("g"), server("0000000000100000") };
}

// One sample: 0x03, a stop, the PC read with `p1`.
Script stopAt(const std::string& pcLittleEndian)
{
    return { clientRaw("\x03"), server("T02thread:01;"), client("p1"), server(pcLittleEndian) };
}

struct Sampled {
    SamplingResult result;
    std::vector<uint64_t> pcs;
    std::string peer; // the fake peer's complaint, "" if the client said exactly the script
};

// These scripts read the stopped thread's PC only (threads_test.cc reads every thread's).
SamplerOptions stoppedThreadOnly()
{
    SamplerOptions options;
    options.everyThread = false;
    options.interval = std::chrono::microseconds(2000);
    return options;
}

Sampled sampleOver(Script script, SamplerOptions options = stoppedThreadOnly(), PeerOptions peerOptions = {})
{
    FakePeer peer(std::move(script), peerOptions);
    SessionOptions sessionOptions;
    sessionOptions.requestTimeout = std::chrono::milliseconds(300);
    Session session(peer.client(), sessionOptions);
    EXPECT_TRUE(session.negotiate().ok());
    PcReader reader(session, RegisterInfo { "pc", 32, 1, "code_ptr", "", "", 4 });
    EXPECT_TRUE(reader.probe().ok());
    options.seed = 1;
    options.stopWait = std::chrono::milliseconds(300);
    if (peerOptions.holdStops)
        options.fallbackInterrupt = [&peer]() -> Status {
            peer.release();
            return std::monostate {};
        };
    Sampled run;
    run.result = sample(session, reader, options, [&run](uint64_t pc) { run.pcs.push_back(pc); });
    if (peerOptions.stall)
        peer.release();
    run.peer = peer.finish();
    return run;
}

} // namespace

TEST(Sampler, SamplesUntilTheTargetExits)
{
    Sampled run = sampleOver(opening() + Script { client("c") } + stopAt("10100000") + Script { client("c") }
        + stopAt("20100000") + Script { client("c"), server("W00") });
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1010, 0x1020 }));
    EXPECT_EQ(run.result.samples, 2u);
    EXPECT_EQ(run.result.stopSeconds.size(), 2u);
    EXPECT_EQ(run.result.interruptByte, true);
    EXPECT_FALSE(run.result.detached); // nothing left to detach from
}

TEST(Sampler, PassesTheProgramsOwnSignalOn)
{
    // SIGALRM (14) stops the target by itself: it goes back with `C0e`, and is no sample. The stop
    // is sent at once, but on a loaded machine the peer's thread may take longer than 2 ms to send
    // it, and the sampler would interrupt first: the interval leaves it time.
    SamplerOptions options = stoppedThreadOnly();
    options.interval = std::chrono::milliseconds(250);
    Sampled run = sampleOver(opening() + Script { client("c"), server("T0ethread:01;"), client("C0e") }
            + stopAt("10100000") + Script { client("c"), server("W00") },
        options);
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.programSignals, 1u);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1010 }));
}

TEST(Sampler, StopFlagStopsAndDetaches)
{
    std::atomic<bool> stop { true };
    SamplerOptions options = stoppedThreadOnly();
    options.stop = &stop;
    Sampled run = sampleOver(
        opening() + Script { client("c"), clientRaw("\x03"), server("T02thread:01;"), client("D"), server("OK") },
        options);
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.end, SamplingEnd::Interrupted);
    EXPECT_TRUE(run.result.detached);
    EXPECT_EQ(run.result.samples, 0u);
}

TEST(Sampler, FallsBackWhenTheServerIgnores0x03)
{
    SamplerOptions options = stoppedThreadOnly();
    options.interruptWait = std::chrono::milliseconds(100);
    PeerOptions peer;
    peer.holdStops = true;
    Sampled run = sampleOver(
        opening() + Script { client("c") } + stopAt("10100000") + Script { client("c"), server("W00") }, options, peer);
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.interruptByte, false);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1010 }));
    // The stop time counts from the SIGINT, not from the ignored 0x03.
    ASSERT_EQ(run.result.stopSeconds.size(), 1u);
    EXPECT_LT(run.result.stopSeconds[0], 0.1);
}

TEST(Sampler, DisconnectionEndsWithTheSamplesSoFar)
{
    Sampled run = sampleOver(opening() + Script { client("c") } + stopAt("10100000") + Script { client("c") });
    EXPECT_EQ(run.result.end, SamplingEnd::PeerError);
    EXPECT_NE(run.result.error.find("connection closed by the server"), std::string::npos) << run.result.error;
    EXPECT_EQ(run.result.error.find('\n'), std::string::npos);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1010 }));
}

TEST(Sampler, GarbageEndsWithTheSamplesSoFar)
{
    Sampled run = sampleOver(opening() + Script { client("c") } + stopAt("10100000")
        + Script { client("c"), clientRaw("\x03"), serverRaw("garbage$T02thread:01;#00") });
    EXPECT_EQ(run.result.end, SamplingEnd::PeerError);
    EXPECT_NE(run.result.error.find("bad checksum"), std::string::npos) << run.result.error;
    EXPECT_EQ(run.result.samples, 1u);
}

TEST(Sampler, AWrongAnswerEndsWithTheSamplesSoFar)
{
    Sampled run = sampleOver(opening() + Script { client("c") } + stopAt("10100000")
        + Script { client("c"), clientRaw("\x03"), server("OK") });
    EXPECT_EQ(run.result.end, SamplingEnd::PeerError);
    EXPECT_NE(run.result.error.find("fake-peer"), std::string::npos) << run.result.error;
    EXPECT_EQ(run.result.samples, 1u);
}

TEST(Sampler, AStallEndsWithTheSamplesSoFar)
{
    PeerOptions peer;
    peer.stall = true;
    Sampled run = sampleOver(
        opening() + Script { client("c") } + stopAt("10100000") + Script { client("c"), clientRaw("\x03") },
        stoppedThreadOnly(), peer);
    EXPECT_EQ(run.result.end, SamplingEnd::PeerError);
    EXPECT_NE(run.result.error.find("no answer before the deadline"), std::string::npos) << run.result.error;
    EXPECT_EQ(run.result.samples, 1u);
}

// Running mode (--mode running): each sample is a `p` while the target runs, and nothing stops it.
SamplerOptions whileRunning()
{
    SamplerOptions options = stoppedThreadOnly();
    options.whileRunning = true;
    return options;
}

TEST(Sampler, RunningModeReadsThePcWithoutAStop)
{
    Sampled run = sampleOver(opening()
            + Script { client("c"), client("p1"), server("10100000"), client("p1"), server("20100000"), client("p1"),
                server("W00") },
        whileRunning());
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
    EXPECT_TRUE(run.result.whileRunning);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1010, 0x1020 }));
    EXPECT_TRUE(run.result.stopSeconds.empty());
    EXPECT_EQ(run.result.readSeconds.size(), 2u);
    EXPECT_EQ(intrusionOf(run.result).stops, 0u);
}

// The target stopped by itself (a breakpoint's SIGTRAP) just before the read was answered: the PC
// still counts, and the stop is the target's own: it runs again.
TEST(Sampler, RunningModeTakesAStopBeforeTheAnswerAsTheTargetsOwn)
{
    Sampled run = sampleOver(opening()
            + Script { client("c"), client("p1"), server("T05thread:01;"), server("10100000"), client("c"),
                client("p1"), server("20100000"), client("p1"), server("W00") },
        whileRunning());
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1010, 0x1020 }));
    EXPECT_TRUE(run.result.stopSeconds.empty());
}

// gdbserver and qemu's stubs read nothing while the target runs: one line says so, and the target
// is stopped and detached, never left stopped.
TEST(Sampler, RunningModeOnAServerThatReadsOnlyAStoppedTargetIsAnError)
{
    Sampled run = sampleOver(opening()
            + Script { client("c"), client("p1"), clientRaw("\x03"), server("T02thread:01;"), client("D"),
                server("OK") },
        whileRunning());
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.result.end, SamplingEnd::PeerError);
    EXPECT_NE(run.result.error.find("no answer to a register read while the target runs"), std::string::npos)
        << run.result.error;
    EXPECT_TRUE(run.result.detached);
    EXPECT_TRUE(run.pcs.empty());
}

TEST(Sampler, IntrusionFigures)
{
    SamplingResult r;
    r.stopSeconds = { 0.001, 0.002, 0.003, 0.004, 0.005, 0.006, 0.007, 0.008, 0.009, 0.010 };
    r.wallSeconds = 1.1;
    Intrusion in = intrusionOf(r);
    EXPECT_EQ(in.stops, 10u);
    EXPECT_DOUBLE_EQ(in.stopped, 0.055);
    EXPECT_DOUBLE_EQ(in.mean, 0.0055);
    EXPECT_DOUBLE_EQ(in.p90, 0.010);
    EXPECT_DOUBLE_EQ(in.ratio, 0.05);
}

// The .ppe of a run a bad peer ended: core's records, then the remote ones, read back by the
// profile reader.
TEST(RemoteProfile, RoundTripThroughTheReader)
{
    ElfImage elf;
    elf.path = "/prog";
    elf.machine = EM_ARCV2;
    elf.segments
        = { ElfSegment { 0, 0x10000, 0x800, 0x800, true }, ElfSegment { 0x800, 0x12800, 0x100, 0x200, false } };
    auto profile = RemoteProfile::create(elf, 0, 20000, 1 << 20);
    ASSERT_TRUE(profile.ok()) << profile.error().str();
    for (uint64_t pc : { 0x10100, 0x10100, 0x10102, 0x12900, 0x7f000000 })
        profile->add(pc);
    RemoteRun run;
    run.producer = "ppe-arc test";
    run.server = "127.0.0.1:1234";
    run.target = "arc:ARCv2";
    run.pc = "pc (regnum 36) read by p";
    run.interrupt = "SIGINT to the server process";
    run.command = { "ppe-arc", "sample" };
    SamplingResult result;
    result.end = SamplingEnd::PeerError;
    result.error = "127.0.0.1:1234: connection closed by the server";
    result.samples = 5;
    result.stopSeconds = { 0.001, 0.001, 0.001, 0.001, 0.002 };
    result.wallSeconds = 0.5;
    const std::string text = profile->text(run, result, {});
    auto read = ppe::parseProfile(text, "remote.ppe");
    ASSERT_TRUE(read.ok()) << read.error().str() << "\n" << text;
    EXPECT_EQ(read->mechanism, "gdb-remote");
    EXPECT_EQ(read->arch, "arc");
    EXPECT_EQ(read->granularity, 2u);
    EXPECT_EQ(read->endReason, "peer error");
    EXPECT_EQ(read->remoteError, result.error);
    EXPECT_EQ(read->remoteServer, run.server);
    EXPECT_EQ(read->remoteInterrupt, run.interrupt);
    EXPECT_EQ(read->remoteMode, "halt-and-read");
    EXPECT_EQ(read->intrusionStops, 5u);
    EXPECT_DOUBLE_EQ(read->stopMean, 0.0012);
    EXPECT_DOUBLE_EQ(read->stopP90, 0.002);
    EXPECT_DOUBLE_EQ(read->stoppedRatio, 0.012);
    EXPECT_EQ(read->inRange(), 3u);
    EXPECT_EQ(read->counts[ppe::kAbove], 1u); // in the image's data segment
    EXPECT_EQ(read->counts[ppe::kUnknown], 1u); // no library holds it
    EXPECT_EQ(read->total, 5u);
}
