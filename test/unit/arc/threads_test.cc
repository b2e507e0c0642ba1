// Threads in the sampling loop (sampler.h) over a fake peer: in all-stop mode every thread's PC at
// each stop (qfThreadInfo, Hg, p); in non-stop mode one thread a sample, round-robin (vCont;t:TID,
// its %Stop notification drained with vStopped, vCont;c:TID), with stops of other threads passed
// on, a thread that has gone between the list and its stop, and the target's end; and the choice
// of the mode (chooseMode): a server without QNonStop+, one that refuses QNonStop:1.
#include "fake_peer.h"
#include "ppe/arc/sample_run.h"
#include "ppe/arc/sampler.h"
#include "ppe/gdbremote/packet.h"

#include <gtest/gtest.h>

using namespace ppe::gdbremote;
using namespace ppe::gdbremote::testing;
using namespace ppe::arc;
using Script = std::vector<TranscriptLine>;

namespace {

TranscriptLine client(const std::string& packet) { return { '>', frame(packet) }; }
TranscriptLine server(const std::string& packet) { return { '<', frame(packet) }; }
TranscriptLine notify(const std::string& packet) { return { '<', frame(packet, true) }; }
TranscriptLine clientRaw(const std::string& raw) { return { '>', raw }; }

Script operator+(Script a, const Script& b)
{
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

// No-ack negotiation offering `features`; pc is register 1, 32 bits.
Script negotiation(const std::string& features)
{
    return { client("qSupported:multiprocess+;vContSupported+;xmlRegisters=i386"), { '<', "+" },
        server("PacketSize=400;QStartNoAckMode+;multiprocess+" + features), clientRaw("+"), client("QStartNoAckMode"),
        { '<', "+" }, server("OK"), clientRaw("+") };
}

// The PC probe: `p1` and `g` both give pc = 0x1000.
Script probing() { return { client("p1"), server("00100000"), client("g"), server("0000000000100000") }; }

Script nonStopOpening()
{
    return negotiation(";QNonStop+")
        + Script { client("QNonStop:1"), server("OK"), client("?"), server("T05thread:p7.7;"), client("vStopped"),
              server("OK") }
    + probing();
}

struct Sampled {
    SamplingResult result;
    std::vector<uint64_t> pcs;
    std::string mode; // chooseMode's line
    std::string peer; // the fake peer's complaint, "" if the client said exactly the script
};

Sampled sampleOver(Script script, const std::string& mode, SamplerOptions options = {})
{
    FakePeer peer(std::move(script));
    SessionOptions sessionOptions;
    sessionOptions.requestTimeout = std::chrono::milliseconds(500);
    Session session(peer.client(), sessionOptions);
    Sampled run;
    EXPECT_TRUE(session.negotiate().ok());
    auto chosen = chooseMode(session, mode);
    EXPECT_TRUE(chosen.ok()) << chosen.error().str();
    run.mode = chosen ? *chosen : chosen.error().str();
    PcReader reader(session, RegisterInfo { "pc", 32, 1, "code_ptr", "", "", 4 });
    EXPECT_TRUE(reader.probe().ok());
    options.interval = std::chrono::microseconds(2000);
    options.seed = 1;
    options.stopWait = std::chrono::milliseconds(500);
    options.threadStopWait = std::chrono::milliseconds(100);
    run.result = sample(session, reader, options, [&run](uint64_t pc) { run.pcs.push_back(pc); });
    run.peer = peer.finish();
    return run;
}

} // namespace

TEST(Threads, AllStopReadsEveryThreadAtEachStop)
{
    Sampled run = sampleOver(negotiation("")
            + probing()
            // The stopped thread (p7.8) is read first, without Hg; then the others listed.
            + Script { client("c"), clientRaw("\x03"), server("T02thread:p7.8;"), client("p1"), server("20100000"),
                client("qfThreadInfo"), server("mp7.7,p7.8"), client("qsThreadInfo"), server("mp7.9"),
                client("qsThreadInfo"), server("l"), client("Hgp7.7"), server("OK"), client("p1"), server("10100000"),
                client("Hgp7.9"), server("OK"), client("p1"), server("30100000"), client("c"),
                server("W00;process:7") },
        "auto");
    EXPECT_EQ(run.peer, "");
    EXPECT_NE(run.mode.find("does not offer non-stop"), std::string::npos) << run.mode;
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1020, 0x1010, 0x1030 }));
    EXPECT_FALSE(run.result.nonStop);
    EXPECT_TRUE(run.result.everyThread);
    EXPECT_EQ(run.result.samples, 3u);
    EXPECT_EQ(run.result.stopSeconds.size(), 1u) << "one stop, three PCs";
    EXPECT_EQ(run.result.threadsMax, 3u);
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
}

TEST(Threads, NonStopStopsOneThreadAtATime)
{
    SamplerOptions options;
    options.threadListAge = std::chrono::milliseconds(0);
    Sampled run = sampleOver(nonStopOpening()
            + Script { client("vCont;c"), server("OK"), client("qfThreadInfo"), server("mp7.7,p7.8"),
                client("qsThreadInfo"), server("l"),
                // p7.7: its PC expedited in the notification (register 1), no read needed.
                client("vCont;t:p7.7"), server("OK"), notify("Stop:T00thread:p7.7;01:11100000;"), client("vStopped"),
                server("OK"), client("vCont;c:p7.7"), server("OK"),
                // p7.8: no PC in the notification: Hg and p.
                client("vCont;t:p7.8"), server("OK"), notify("Stop:T00thread:p7.8;"), client("vStopped"), server("OK"),
                client("Hgp7.8"), server("OK"), client("p1"), server("22100000"), client("vCont;c:p7.8"), server("OK"),
                notify("Stop:W00;process:7"), client("vStopped"), server("OK") },
        "auto", options);
    EXPECT_EQ(run.peer, "");
    EXPECT_NE(run.mode.find("non-stop mode"), std::string::npos) << run.mode;
    EXPECT_TRUE(run.result.nonStop);
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1011, 0x1022 }));
    EXPECT_EQ(run.result.stopSeconds.size(), 2u);
    EXPECT_EQ(run.result.threadsMax, 2u);
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
    ASSERT_TRUE(run.result.exit.has_value());
    EXPECT_EQ(run.result.exit->code, 0);
}

TEST(Threads, NonStopPassesOtherThreadsOwnStopsOn)
{
    // While p7.7 is being stopped, p7.8 stops for its own SIGALRM (14): vStopped reports both; p7.8
    // runs again with its signal, p7.7 is sampled.
    Sampled run = sampleOver(nonStopOpening()
            + Script { client("vCont;c"), server("OK"), client("qfThreadInfo"), server("mp7.7"), client("qsThreadInfo"),
                server("l"), client("vCont;t:p7.7"), server("OK"), notify("Stop:T0ethread:p7.8;"), client("vStopped"),
                server("T00thread:p7.7;01:33100000;"), client("vStopped"), server("OK"), client("vCont;C0e:p7.8"),
                server("OK"), client("vCont;c:p7.7"), server("OK"), notify("Stop:W02;process:7"), client("vStopped"),
                server("OK") },
        "non-stop");
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1033 }));
    EXPECT_EQ(run.result.programSignals, 1u);
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
}

TEST(Threads, NonStopSkipsAThreadThatWentBetweenTheListAndItsStop)
{
    // p7.8 is listed, then exits: vCont;t:p7.8 is accepted but no stop comes; the list no longer
    // has it: counted as gone, the list read again, the next thread sampled.
    Sampled run = sampleOver(nonStopOpening()
            + Script { client("vCont;c"), server("OK"), client("qfThreadInfo"), server("mp7.8,p7.7"),
                client("qsThreadInfo"), server("l"), client("vCont;t:p7.8"), server("OK"), client("qfThreadInfo"),
                server("mp7.7"), client("qsThreadInfo"), server("l"), client("qfThreadInfo"), server("mp7.7"),
                client("qsThreadInfo"), server("l"), client("vCont;t:p7.7"), server("E01"), client("qfThreadInfo"),
                server("mp7.9"), client("qsThreadInfo"), server("l"), client("vCont;t:p7.9"), server("OK"),
                notify("Stop:T00thread:p7.9;01:44100000;"), client("vStopped"), server("OK"), client("vCont;c:p7.9"),
                server("OK"), notify("Stop:W00;process:7"), client("vStopped"), server("OK") },
        "auto");
    EXPECT_EQ(run.peer, "");
    EXPECT_EQ(run.pcs, (std::vector<uint64_t> { 0x1044 }));
    EXPECT_EQ(run.result.threadsGone, 2u) << "p7.8 never stopped, p7.7 was refused (E01)";
    EXPECT_EQ(run.result.stopSeconds.size(), 1u);
    EXPECT_EQ(run.result.end, SamplingEnd::TargetExited);
}

TEST(Threads, ModeWhenTheServerRefusesNonStop)
{
    // Offered but refused: auto stays in all-stop mode and says why; non-stop asked is an error.
    for (const std::string mode : { "auto", "non-stop" }) {
        FakePeer peer(negotiation(";QNonStop+") + Script { client("QNonStop:1"), server("E01") });
        Session session(peer.client());
        ASSERT_TRUE(session.negotiate().ok());
        auto chosen = chooseMode(session, mode);
        EXPECT_FALSE(session.nonStop());
        if (mode == "auto") {
            ASSERT_TRUE(chosen.ok()) << chosen.error().str();
            EXPECT_NE(chosen->find("all-stop mode: non-stop mode refused: 'E01'"), std::string::npos) << *chosen;
        } else {
            ASSERT_FALSE(chosen.ok());
            EXPECT_NE(chosen.error().str().find("non-stop mode refused"), std::string::npos) << chosen.error().str();
        }
        EXPECT_EQ(peer.finish(), "");
    }
}

TEST(Threads, ModeWhenTheServerDoesNotOfferNonStop)
{
    FakePeer peer(negotiation(""));
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    auto chosen = chooseMode(session, "non-stop");
    ASSERT_FALSE(chosen.ok());
    EXPECT_NE(chosen.error().str().find("no QNonStop+"), std::string::npos) << chosen.error().str();
    auto forced = chooseMode(session, "all-stop");
    ASSERT_TRUE(forced.ok());
    EXPECT_EQ(*forced, "all-stop mode (--mode all-stop)");
    EXPECT_EQ(peer.finish(), "");
}

TEST(Threads, ListFromQXferThreadsInNonStopMode)
{
    // gdbserver offers qXfer:threads:read+. All-stop: qfThreadInfo/qsThreadInfo (cheaper: the
    // document costs gdbserver /proc reads for each thread's core and name). Non-stop: the
    // document, whole at once (gdbserver can garble qsThreadInfo while threads come and go).
    FakePeer peer(negotiation(";qXfer:threads:read+;QNonStop+")
        + Script { client("qfThreadInfo"), server("mp7.7"), client("qsThreadInfo"), server("l"), client("QNonStop:1"),
            server("OK"), client("qXfer:threads:read::0,3e0"),
            server("l<?xml version=\"1.0\"?>\n<threads>\n<thread id=\"p7.7\" core=\"1\" name=\"threads\"/>\n"
                   "<thread id=\"p7.8\" core=\"0\" name=\"threads\"/>\n</threads>\n") });
    Session session(peer.client());
    ASSERT_TRUE(session.negotiate().ok());
    EXPECT_TRUE(session.features().threadsRead);
    auto allStop = session.threadList();
    ASSERT_TRUE(allStop.ok()) << allStop.error().str();
    EXPECT_EQ(*allStop, (std::vector<std::string> { "p7.7" }));
    ASSERT_TRUE(session.enableNonStop().ok());
    auto threads = session.threadList();
    ASSERT_TRUE(threads.ok()) << threads.error().str();
    EXPECT_EQ(*threads, (std::vector<std::string> { "p7.7", "p7.8" }));
    EXPECT_EQ(peer.finish(), "");
}
