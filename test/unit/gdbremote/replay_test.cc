// The probing session replayed against the recorded servers, as recorded and damaged: chunked,
// with garbage, bad checksums, NAKs, truncation, disconnection, stalls and wrong answers.
#include "fake_peer.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/probe.h"

#include <gtest/gtest.h>
#include <memory>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;
using Script = std::vector<TranscriptLine>;

namespace {

const char* const kTranscripts[] = { "gdbserver-launch", "gdbserver-attach", "qemu-aarch64", "qemu-arc" };

bool ignoresInterrupt(const std::string& name) { return reportSays(name, "0x03 stops the running target: no"); }

struct Replay {
    ppe::Result<ProbeResult> result;
    std::string peerFailure;
    SessionStats stats;
    DecoderStats decoder;
};

Replay replay(const std::string& name, Script script, PeerOptions peerOptions = {}, SessionOptions options = {})
{
    peerOptions.holdStops = ignoresInterrupt(name);
    FakePeer peer(std::move(script), peerOptions);
    auto session = std::make_unique<Session>(peer.client(), options);
    ProbeOptions probe;
    probe.runFor = std::chrono::milliseconds(0);
    probe.interruptWait = std::chrono::milliseconds(peerOptions.holdStops ? 200 : 5000);
    probe.fallbackInterrupt = [&peer]() -> Status {
        peer.release();
        return std::monostate {};
    };
    Replay r { probeSession(*session, probe), {}, {}, {} };
    r.stats = session->stats();
    r.decoder = session->decoderStats();
    session.reset(); // the client hangs up, as a program would at its end
    peer.release(); // a peer stalling at the end (PeerOptions::stall) may go
    r.peerFailure = peer.finish();
    return r;
}

// The line of `script` at which the server first sends a packet whose payload starts `prefix`.
std::size_t serverLine(const Script& script, const std::string& prefix, std::size_t from = 0)
{
    for (std::size_t i = from; i < script.size(); ++i) {
        if (script[i].direction == '<' && script[i].bytes.rfind("$" + prefix, 0) == 0)
            return i;
    }
    ADD_FAILURE() << "no server packet starting " << prefix;
    return 0;
}

std::size_t clientLine(const Script& script, const std::string& raw)
{
    for (std::size_t i = 0; i < script.size(); ++i) {
        if (script[i].direction == '>' && script[i].bytes == raw)
            return i;
    }
    ADD_FAILURE() << "no client line " << raw;
    return 0;
}

std::string corrupted(std::string raw)
{
    raw[raw.size() - 1] = raw[raw.size() - 1] == '0' ? '1' : '0';
    return raw;
}

void expectSamePcs(const std::string& name, const Replay& r)
{
    ASSERT_TRUE(r.result.ok()) << r.result.error().str() << "; peer: " << r.peerFailure;
    EXPECT_EQ(r.peerFailure, "");
    EXPECT_EQ(r.result->pcs, reportedPcs(name));
    EXPECT_FALSE(r.result->pcs.empty());
}

} // namespace

class ReplayEach : public ::testing::TestWithParam<const char*> { };

TEST_P(ReplayEach, AsRecorded)
{
    std::string name = GetParam();
    auto r = replay(name, loadTranscript(name));
    expectSamePcs(name, r);
    ASSERT_TRUE(r.result.ok());
    EXPECT_EQ(r.result->pc.name, reportSays(name, "pc: rip") ? "rip" : "pc");
    EXPECT_EQ(r.stats.retransmits, 0u);
}

TEST_P(ReplayEach, ByteByByte)
{
    std::string name = GetParam();
    PeerOptions options;
    options.chunk = 1;
    expectSamePcs(name, replay(name, loadTranscript(name), options));
}

TEST_P(ReplayEach, WithGarbageBetweenPackets)
{
    std::string name = GetParam();
    Script script;
    for (auto& line : loadTranscript(name)) {
        if (line.direction == '<' && line.bytes[0] == '$')
            script.push_back({ '<', "\r\nnoise }*#\x7f" });
        script.push_back(line);
    }
    auto r = replay(name, script);
    expectSamePcs(name, r);
    EXPECT_GT(r.decoder.garbageBytes, 100u);
}

TEST_P(ReplayEach, TruncatedReply)
{
    std::string name = GetParam();
    Script script = loadTranscript(name);
    std::size_t at = serverLine(script, "l<?xml");
    script.resize(at + 1);
    script[at].bytes.resize(script[at].bytes.size() / 2);
    auto r = replay(name, script);
    ASSERT_FALSE(r.result.ok());
    EXPECT_EQ(r.result.error().str(),
        "fake-peer: reading target.xml: connection closed by the server (in the middle of a packet)");
}

TEST_P(ReplayEach, ServerDisconnects)
{
    std::string name = GetParam();
    Script script = loadTranscript(name);
    script.resize(clientLine(script, "$?#3f") + 1);
    auto r = replay(name, script);
    ASSERT_FALSE(r.result.ok());
    EXPECT_EQ(r.result.error().str(), "fake-peer: connection closed by the server");
}

TEST_P(ReplayEach, ServerStalls)
{
    std::string name = GetParam();
    Script script = loadTranscript(name);
    script.resize(clientLine(script, "$?#3f") + 1);
    PeerOptions peer;
    peer.stall = true;
    SessionOptions options;
    options.requestTimeout = std::chrono::milliseconds(200);
    options.ackTimeout = std::chrono::milliseconds(100);
    auto r = replay(name, script, peer, options);
    ASSERT_FALSE(r.result.ok());
    EXPECT_NE(r.result.error().str().find("fake-peer: "), std::string::npos) << r.result.error().str();
}

TEST_P(ReplayEach, WrongStopReply)
{
    std::string name = GetParam();
    Script script = loadTranscript(name);
    std::size_t at = serverLine(script, "T", clientLine(script, "$?#3f"));
    script[at].bytes = frame("Q05");
    script.resize(at + 1);
    auto r = replay(name, script);
    ASSERT_FALSE(r.result.ok());
    EXPECT_EQ(r.result.error().str(), "fake-peer: unknown kind in stop reply 'Q05'");
}

INSTANTIATE_TEST_SUITE_P(Servers, ReplayEach, ::testing::ValuesIn(kTranscripts), [](const auto& info) {
    std::string name = info.param;
    for (char& c : name)
        c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
    return name;
});

TEST(Replay, AckModeNaksABadChecksumAndTakesTheResend)
{
    Script script = loadTranscript("qemu-arc");
    std::size_t at = serverLine(script, "T05");
    TranscriptLine good = script[at];
    script[at].bytes = corrupted(good.bytes);
    script.insert(script.begin() + static_cast<long>(at) + 1, { { '>', "-" }, good });
    auto r = replay("qemu-arc", script);
    expectSamePcs("qemu-arc", r);
    EXPECT_EQ(r.stats.naksSent, 1u);
    EXPECT_EQ(r.decoder.badChecksums, 1u);
}

TEST(Replay, AckModeResendsAPacketTheServerNaked)
{
    Script script = loadTranscript("qemu-arc");
    std::size_t at = clientLine(script, "$?#3f");
    ASSERT_EQ(script[at + 1].bytes, "+");
    script[at + 1].bytes = "-";
    script.insert(script.begin() + static_cast<long>(at) + 2, { { '>', "$?#3f" }, { '<', "+" } });
    auto r = replay("qemu-arc", script);
    expectSamePcs("qemu-arc", r);
    EXPECT_EQ(r.stats.retransmits, 1u);
}

TEST(Replay, NoAckModeRefusesABadChecksum)
{
    Script script = loadTranscript("gdbserver-launch");
    std::size_t at = serverLine(script, "T05");
    script[at].bytes = corrupted(script[at].bytes);
    auto r = replay("gdbserver-launch", script);
    ASSERT_FALSE(r.result.ok());
    EXPECT_EQ(r.result.error().str(), "fake-peer: a reply with a bad checksum in no-ack mode");
}

TEST(Replay, RefusesAHugeReply)
{
    Script script = loadTranscript("qemu-arc");
    std::size_t at = serverLine(script, "l<?xml");
    script[at].bytes = frame("l" + std::string(20000, 'x'));
    script.resize(at + 1);
    auto r = replay("qemu-arc", script);
    ASSERT_FALSE(r.result.ok());
    EXPECT_EQ(r.result.error().str(), "fake-peer: reading target.xml: a reply longer than 8192 bytes");
}

TEST(Replay, NoWayToReadThePc)
{
    // qemu-arc's `g` ends before pc; if `p` fails too there is nothing left.
    Script script = loadTranscript("qemu-arc");
    std::size_t at = clientLine(script, "$p24#d6");
    std::size_t reply = serverLine(script, "", at + 2);
    script[reply].bytes = frame("E01");
    script.resize(serverLine(script, "", reply + 1) + 2);
    auto r = replay("qemu-arc", script);
    ASSERT_FALSE(r.result.ok());
    EXPECT_EQ(r.result.error().str(),
        "fake-peer: no way to read pc: p: not 4 bytes of pc: 'E01'; reply of 144 bytes ends before pc");
}
