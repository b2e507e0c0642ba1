// TargetControl against scripted servers: it owns the run state and the way to stop the target.
// A running all-stop target gets no request (the server would drop or queue it); 0x03 is probed
// once; a server that ignores it with no other way to stop the target is an error, not a crash
// (issue 36: std::bad_function_call), and a fallback is used from then on once it worked.
#include "fake_peer.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/target_control.h"

#include <gtest/gtest.h>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;
using Script = std::vector<TranscriptLine>;

namespace {

TranscriptLine client(const std::string& packet) { return { '>', frame(packet) }; }
TranscriptLine server(const std::string& packet) { return { '<', frame(packet) }; }
TranscriptLine raw(char direction, const std::string& bytes) { return { direction, bytes }; }

// A no-ack negotiation, then `?` answered by a stop.
Script started()
{
    return { client("qSupported:multiprocess+;vContSupported+;xmlRegisters=i386"), raw('<', "+"),
        server("PacketSize=400;QStartNoAckMode+"), raw('>', "+"), client("QStartNoAckMode"), raw('<', "+"),
        server("OK"), raw('>', "+"), client("?"), server("T05thread:01;") };
}

Script operator+(Script a, const Script& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

} // namespace

TEST(TargetControl, NoRequestToARunningAllStopTarget)
{
    FakePeer peer(started()
        + Script { client("c"), raw('>', "\x03"), server("T02thread:01;"), client("g"), server("00"), client("D"),
            server("OK") });
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    ASSERT_TRUE(session.haltReason().ok());
    TargetControl control(session);
    EXPECT_EQ(control.state(), TargetState::Stopped);
    ASSERT_TRUE(control.resume().ok());
    auto refused = control.request("g");
    ASSERT_FALSE(refused.ok());
    EXPECT_NE(refused.error().message.find("not sent: the target runs in all-stop mode"), std::string::npos);
    EXPECT_FALSE(control.resume().ok()) << "resumed twice";
    auto stop = control.stop();
    ASSERT_TRUE(stop.ok()) << stop.error().str();
    EXPECT_EQ(control.means(), StopMeans::InterruptByte);
    EXPECT_EQ(control.interruptByte(), std::optional<bool>(true));
    EXPECT_EQ(control.request("g").value(), "00");
    EXPECT_TRUE(control.detach().ok());
    EXPECT_EQ(control.state(), TargetState::Detached);
    EXPECT_FALSE(control.request("g").ok()) << "a request after the detach";
    EXPECT_EQ(peer.finish(), "");
}

// The crash of issue 36: 0x03 ignored, no fallback, the server not on this machine. An error
// naming the ways out; detach cannot stop the target either and says so; nothing else is sent.
TEST(TargetControl, IgnoredInterruptWithoutAFallbackIsAnError)
{
    PeerOptions stall;
    stall.stall = true;
    FakePeer peer(started() + Script { client("c"), raw('>', "\x03") }, stall);
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    ASSERT_TRUE(session.haltReason().ok());
    ControlOptions options;
    options.interruptWait = std::chrono::milliseconds(100);
    TargetControl control(session, options);
    ASSERT_TRUE(control.resume().ok());
    auto stop = control.stop();
    ASSERT_FALSE(stop.ok());
    EXPECT_NE(stop.error().message.find("--spawn"), std::string::npos) << stop.error().message;
    EXPECT_NE(stop.error().message.find("--mode non-stop"), std::string::npos);
    EXPECT_EQ(control.means(), StopMeans::None);
    EXPECT_EQ(control.interruptByte(), std::optional<bool>(false));
    EXPECT_FALSE(control.detach().ok());
    EXPECT_EQ(control.state(), TargetState::Running);
    peer.release();
    EXPECT_EQ(peer.finish(), "");
}

// A server that ignores 0x03 (QEMU): the fallback stops it, and is used directly from then on.
TEST(TargetControl, FallbackFromThenOn)
{
    PeerOptions hold;
    hold.holdStops = true;
    FakePeer peer(started()
            + Script { client("c"), raw('>', "\x03"), server("T02thread:01;"), client("c"), server("T02thread:01;"),
                client("D"), server("OK") },
        hold);
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    ASSERT_TRUE(session.haltReason().ok());
    int signals = 0;
    ControlOptions options;
    options.interruptWait = std::chrono::milliseconds(100);
    options.fallbackInterrupt = [&]() -> Status {
        ++signals;
        peer.release();
        return std::monostate {};
    };
    TargetControl control(session, options);
    for (int i = 0; i < 2; ++i) {
        ASSERT_TRUE(control.resume().ok());
        auto stop = control.stop();
        ASSERT_TRUE(stop.ok()) << stop.error().str();
    }
    EXPECT_EQ(signals, 2);
    EXPECT_EQ(control.means(), StopMeans::ServerSignal);
    EXPECT_EQ(control.meansName(), "SIGINT to the server process");
    EXPECT_TRUE(control.detach().ok());
    EXPECT_EQ(peer.finish(), "");
}

// QEMU's second stop for one 0x03 can come after the next packet was sent, in place of its reply
// (issue 36: stale stop replies were drained only as far as they had arrived). The `p` of the PC
// read and the `g` get their own replies, the late stops are counted, `?` still gets a stop.
TEST(TargetControl, ALateStaleStopIsReadPastNotTakenForTheReply)
{
    FakePeer peer(started()
        + Script { client("c"), raw('>', "\x03"), server("T02thread:01;"), client("p10"), server("T02thread:01;"),
            server("2a00000000000000"), client("g"), server("S02"), server("0011"), client("?"),
            server("T02thread:01;"), client("D"), server("T02thread:01;"), server("OK") });
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    ASSERT_TRUE(session.haltReason().ok());
    TargetControl control(session);
    ASSERT_TRUE(control.resume().ok());
    ASSERT_TRUE(control.stop().ok());
    auto pc = session.readRegister(0x10);
    ASSERT_TRUE(pc.ok()) << pc.error().str();
    EXPECT_EQ(*pc, "2a00000000000000");
    EXPECT_EQ(control.request("g").value(), "0011");
    EXPECT_EQ(control.staleStops(), 2u);
    auto halt = session.haltReason();
    ASSERT_TRUE(halt.ok()) << halt.error().str();
    EXPECT_EQ(halt->code, 2);
    EXPECT_TRUE(control.detach().ok());
    EXPECT_EQ(control.staleStops(), 3u);
    EXPECT_EQ(peer.finish(), "");
}
