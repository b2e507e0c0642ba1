// Session behaviour on made-up exchanges that the recorded servers did not show: console output,
// non-stop notifications, a packet lost by the server, qXfer in several chunks, kill.
#include "fake_peer.h"
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/probe.h"
#include "ppe/gdbremote/session.h"

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <gtest/gtest.h>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;
using Script = std::vector<TranscriptLine>;

namespace {

TranscriptLine client(const std::string& packet) { return { '>', frame(packet) }; }
TranscriptLine server(const std::string& packet) { return { '<', frame(packet) }; }
TranscriptLine notify(const std::string& packet) { return { '<', frame(packet, true) }; }
TranscriptLine clientRaw(const std::string& raw) { return { '>', raw }; }
TranscriptLine serverRaw(const std::string& raw) { return { '<', raw }; }

// The exchange of a no-ack negotiation with the given qSupported reply.
Script noAck(const std::string& features)
{
    return { client("qSupported:multiprocess+;vContSupported+;xmlRegisters=i386"), serverRaw("+"),
        server(features + ";QStartNoAckMode+"), clientRaw("+"), client("QStartNoAckMode"), serverRaw("+"), server("OK"),
        clientRaw("+") };
}

Script operator+(Script a, const Script& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST(Session, ConsoleOutputBeforeTheStop)
{
    FakePeer peer(noAck("PacketSize=400")
        + Script { client("c"), server("O" + toHex("hello\n")), server("O" + toHex("world\n")), server("W2a") });
    std::string console;
    SessionOptions options;
    options.console = [&console](std::string_view text) { console += text; };
    Session session(peer.client(), options);
    ASSERT_TRUE(session.negotiate().ok());
    EXPECT_FALSE(session.ackMode());
    ASSERT_TRUE(session.resume().ok());
    auto stop = session.waitForStop(std::chrono::milliseconds(2000));
    ASSERT_TRUE(stop.ok()) << stop.error().str();
    EXPECT_EQ(stop->kind, StopReply::Kind::Exited);
    EXPECT_EQ(stop->code, 42);
    EXPECT_EQ(console, "hello\nworld\n");
    EXPECT_EQ(peer.finish(), "");
}

TEST(Session, NonStopStopsComeAsNotifications)
{
    FakePeer peer(noAck("PacketSize=400;QNonStop+;multiprocess+")
        + Script { client("QNonStop:1"), server("OK"), client("vCont;c"), server("OK"), client("vCont;t"), server("OK"),
            notify("Stop:T13thread:p7.7;"), client("vStopped"), server("T13thread:p7.8;"), client("vStopped"),
            server("OK"), client("D;7"), server("OK") });
    Session session(peer.client());
    auto features = session.negotiate();
    ASSERT_TRUE(features.ok());
    EXPECT_TRUE(features->nonStop);
    ASSERT_TRUE(session.enableNonStop().ok());
    ASSERT_TRUE(session.resume().ok());
    ASSERT_TRUE(session.interrupt().ok());
    auto stop = session.waitForStop(std::chrono::milliseconds(2000));
    ASSERT_TRUE(stop.ok()) << stop.error().str();
    EXPECT_EQ(stop->code, 0x13);
    EXPECT_EQ(stop->thread, "p7.7");
    ASSERT_TRUE(session.detach().ok());
    EXPECT_EQ(session.stats().notifications, 1u);
    EXPECT_EQ(peer.finish(), "");
}

TEST(Session, ResendsAPacketLostWhileTheServerRepeatedItsStop)
{
    // QEMU user mode after a 0x03: it repeats its stop reply while reading our packet as
    // not-an-ack, so the packet is lost; no `+` comes for it and it goes again.
    FakePeer peer({ client("p20"), server("T02thread:p01.2dc0;"), clientRaw("+"), client("p20"), serverRaw("+"),
        server("b008000055000000"), clientRaw("+") });
    SessionOptions options;
    options.ackTimeout = std::chrono::milliseconds(100);
    Session session(peer.client(), options);
    auto reply = session.readRegister(32);
    ASSERT_TRUE(reply.ok()) << reply.error().str();
    EXPECT_EQ(*reply, "b008000055000000");
    EXPECT_EQ(session.stats().unsolicited, 1u);
    EXPECT_EQ(session.stats().retransmits, 1u);
    EXPECT_EQ(peer.finish(), "");
}

// A server that stalled longer than ackTimeout (qemu-arc under load) acknowledges and answers
// both copies of the packet sent again: the second `p` reply, left queued, answered the next
// request (ppe-arc: "cannot list the threads: qfThreadInfo reply '00050100'"). The echo is dropped.
TEST(Session, TheEchoOfAPacketSentAgainAnswersNoLaterRequest)
{
    FakePeer peer({ client("p24"), client("p24"), serverRaw("+"), server("00050100"), clientRaw("+"), serverRaw("+"),
        server("00050100"), clientRaw("+"), client("qfThreadInfo"), serverRaw("+"), server("m1"), clientRaw("+") });
    SessionOptions options;
    options.ackTimeout = std::chrono::milliseconds(100);
    Session session(peer.client(), options);
    auto pc = session.readRegister(0x24);
    ASSERT_TRUE(pc.ok()) << pc.error().str();
    EXPECT_EQ(*pc, "00050100");
    auto threads = session.request("qfThreadInfo");
    ASSERT_TRUE(threads.ok()) << threads.error().str();
    EXPECT_EQ(*threads, "m1");
    EXPECT_EQ(session.stats().echoes, 1u);
    EXPECT_EQ(peer.finish(), "");
}

TEST(Session, GivesUpOnAServerThatNeverAcks)
{
    PeerOptions stall;
    stall.stall = true;
    FakePeer peer({ client("g"), client("g"), client("g") }, stall);
    SessionOptions options;
    options.ackTimeout = std::chrono::milliseconds(50);
    options.maxRetransmits = 2;
    Session session(peer.client(), options);
    auto reply = session.readRegisters();
    ASSERT_FALSE(reply.ok());
    EXPECT_EQ(reply.error().str(), "fake-peer: the server did not accept a packet in 3 tries");
    peer.release();
    EXPECT_EQ(peer.finish(), "");
}

TEST(Session, ReadsADocumentInChunks)
{
    FakePeer peer(noAck("PacketSize=60;qXfer:features:read+")
        + Script { client("qXfer:features:read:target.xml:0,40"), server("m<target>"),
            client("qXfer:features:read:target.xml:8,40"), server("m<reg name=\"pc\" bitsize=\"32\"/>"),
            client("qXfer:features:read:target.xml:25,40"), server("l</target>") });
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    auto tdesc = session.readTargetDescription();
    ASSERT_TRUE(tdesc.ok()) << tdesc.error().str();
    EXPECT_EQ(tdesc->pc()->regnum, 0u);
    EXPECT_EQ(peer.finish(), "");
}

TEST(Session, NoDescriptionOffered)
{
    FakePeer peer(noAck("PacketSize=400"));
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    auto tdesc = session.readTargetDescription();
    ASSERT_FALSE(tdesc.ok());
    EXPECT_EQ(tdesc.error().str(),
        "fake-peer: the server offers no target description (qXfer:features:read): use --tdesc FILE");
}

TEST(Session, KillNeedsNoReply)
{
    FakePeer peer(noAck("PacketSize=400") + Script { client("k") });
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    EXPECT_TRUE(session.kill().ok());
    EXPECT_EQ(peer.finish(), "");
}

TEST(Session, ConnectRefusedAndBadAddresses)
{
    auto refused = Session::connect("127.0.0.1:1", std::chrono::milliseconds(500));
    ASSERT_FALSE(refused.ok());
    EXPECT_EQ(refused.error().str(), "127.0.0.1:1: cannot connect: Connection refused");
    auto bad = Session::connect("nonsense", std::chrono::milliseconds(500));
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().str(), "nonsense: expected HOST:PORT");
}

TEST(Session, FeaturesParsed)
{
    auto f = parseFeatures("PacketSize=47ff;qXfer:features:read+;QStartNoAckMode+;multiprocess+;QNonStop+;"
                           "qXfer:libraries-svr4:read+;vContSupported+;swbreak+");
    EXPECT_EQ(f.packetSize, 0x47ffu);
    EXPECT_TRUE(f.featuresRead && f.noAckMode && f.multiprocess && f.nonStop && f.librariesRead && f.vContSupported);
    auto q = parseFeatures("PacketSize=1000;qXfer:features:read+;qXfer:auxv:read+;vContSupported+;multiprocess+");
    EXPECT_FALSE(q.noAckMode);
    EXPECT_FALSE(q.nonStop);
}

TEST(Session, ProbeWithAUserDescription)
{
    // A server without qXfer:features:read, described by the user's files (--tdesc FILE): the
    // ARC documents qemu-arc sent, written to a directory.
    auto dir = std::filesystem::temp_directory_path() / ("ppe-tdesc-probe-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const auto& [name, text] : documentsOf("qemu-arc"))
        std::ofstream(dir / name) << text;
    std::string pc = "5a050100"; // 0x1055a, little-endian
    FakePeer peer(noAck("PacketSize=1000;multiprocess+")
        + Script { client("?"), server("T05thread:p2a.2a;"), client("p24"), server(pc), client("g"),
            server(std::string(144 * 2, '0')), client("p24"), server(pc), client("D;2a"), server("OK") });
    Session session(peer.client());
    ProbeOptions options;
    options.stops = 0;
    options.tdescFile = (dir / "target.xml").string();
    auto result = probeSession(session, options);
    std::filesystem::remove_all(dir);
    ASSERT_TRUE(result.ok()) << result.error().str();
    EXPECT_EQ(result->pc.regnum, 36u);
    EXPECT_EQ(result->pcs, std::vector<std::uint64_t> { 0x1055a });
    EXPECT_EQ(result->pcProbe.strategy, PcStrategy::RegisterPacket);
    EXPECT_FALSE(result->pcProbe.allRegisters);
    EXPECT_EQ(peer.finish(), "");
}
