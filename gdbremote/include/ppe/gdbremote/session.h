// A GDB remote serial protocol session from the client's side: acknowledgements and retransmits,
// no-ack mode, qSupported, the target description, registers, running and stopping, detaching.
// Every wait has a deadline; every failure is a value naming the server and what failed.
#pragma once

#include "ppe/gdbremote/connection.h"
#include "ppe/gdbremote/packet.h"
#include "ppe/gdbremote/stop_reply.h"
#include "ppe/gdbremote/target_description.h"

#include <deque>
#include <functional>
#include <optional>
#include <vector>

namespace ppe::gdbremote {

// What qSupported offered (GDB manual, "General Query Packets").
struct ServerFeatures {
    std::size_t packetSize = 0; // 0: not stated
    bool featuresRead = false; // qXfer:features:read+
    bool noAckMode = false; // QStartNoAckMode+
    bool vContSupported = false;
    bool multiprocess = false;
    bool nonStop = false; // QNonStop+
    bool librariesRead = false; // qXfer:libraries-svr4:read+ or qXfer:libraries:read+
    bool librariesSvr4 = false; // qXfer:libraries-svr4:read+
    bool auxvRead = false; // qXfer:auxv:read+
    bool threadsRead = false; // qXfer:threads:read+
    std::string reply; // the qSupported reply as received
};

ServerFeatures parseFeatures(std::string_view reply);

struct SessionOptions {
    std::chrono::milliseconds requestTimeout { 3000 };
    // How long to wait for the `+` of a packet before sending it again (ack mode).
    std::chrono::milliseconds ackTimeout { 1000 };
    int maxRetransmits = 5; // sends of one packet, and NAKs of replies, before giving up
    // Text of `O` console-output packets (already decoded from hex).
    std::function<void(std::string_view)> console;
    // Every frame, ack and stray byte, in order: '>' sent, '<' received (for transcripts).
    std::function<void(char direction, std::string_view raw)> tap;
    // Offer `swbreak+`: a server that takes it reports a stop at a software breakpoint with
    // `swbreak:` and the PC at the breakpoint (gdbserver on x86 otherwise leaves it after the int3,
    // for the client to set back: a client killed before it does leaves the program one byte off).
    bool swbreak = false;
};

struct SessionStats {
    std::size_t naksSent = 0; // bad checksums we asked to be resent
    std::size_t retransmits = 0; // our packets the server NAKed
    std::size_t strayAcks = 0;
    std::size_t unsolicited = 0; // packets that came before the ack of ours (acknowledged, dropped)
    std::size_t notifications = 0;
    std::size_t lateStops = 0; // stale stop replies in place of a request's reply (read past)
    std::size_t echoes = 0; // second replies to a packet sent again after a late `+` (dropped)
};

class Session {
public:
    explicit Session(Connection connection, SessionOptions options = {});
    static Result<Session> connect(
        const std::string& hostPort, std::chrono::milliseconds timeout, SessionOptions options = {});

    // qSupported, then QStartNoAckMode when offered (QEMU does not offer it: acks stay on).
    Result<ServerFeatures> negotiate();
    // Sends one packet and returns its reply; notifications arriving meanwhile are queued.
    Result<std::string> request(std::string_view packet);
    // The next reply packet of a request that is answered by several (`O` output, then `OK`).
    Result<std::string> nextReply() { return receive(deadline()); }
    Result<StopReply> haltReason(); // `?`
    Result<std::string> readRegisters(); // `g`: the reply's hex text ('x' for unavailable bytes)
    Result<std::string> readRegister(unsigned regnum); // `p N`: hex text, "" if unsupported
    // `p N` while the target runs (all-stop), for a server that answers then (OpenOCD reads ARC
    // registers over JTAG while the core runs). A stop reply that comes first is kept for
    // waitForStop (and incoming() says so): the answer still comes, unless the target ended (an
    // error then, at once). Console output goes to the console callback. An error when nothing
    // answers within the request timeout (a server that reads only a stopped target: qemu's stubs,
    // gdbserver).
    Result<std::string> readRegisterRunning(unsigned regnum);
    // `qXfer:features:read:ANNEX:OFFSET,LENGTH` in chunks until an `l` reply.
    Result<std::string> readFeatureDocument(const std::string& annex);
    // `qXfer:OBJECT:read:ANNEX:...` in chunks ("auxv", "libraries-svr4", ...): the whole object.
    Result<std::string> readXfer(const std::string& object, const std::string& annex);
    Result<TargetDescription> readTargetDescription(); // target.xml and its includes
    // Enters non-stop mode (QNonStop:1): resume and interrupt then answer OK, stops come as
    // `%Stop` notifications drained with vStopped.
    Status enableNonStop();

    // `vCont;c` where offered, else `c`; with a signal, `vCont;CSIG` or `CSIG` delivers it to the
    // program (one it stopped with). The reply comes at the next stop.
    Status resume(int signal = 0);
    // One instruction of `thread` ("" the current one): `vCont;s:TID` where vCont is offered, else
    // `s`; with a signal, `S`. All-stop only. The reply comes at the stop after it.
    Status step(const std::string& thread = {}, int signal = 0);
    Status interrupt(); // the 0x03 byte (`vCont;t` in non-stop mode)
    // The target's threads ("p7.8" with multiprocess, else "8"): in non-stop mode
    // `qXfer:threads:read` where offered (one document: gdbserver 13 in non-stop mode can answer
    // a `qsThreadInfo` with a garbled id, then crash, when threads come and go between the
    // packets), else `qfThreadInfo`/`qsThreadInfo` (cheaper: gdbserver's document reads each
    // thread's core and name from /proc).
    Result<std::vector<std::string>> threadList();
    Status selectThread(const std::string& thread); // `Hg TID`: the thread `g` and `p` read
    // Non-stop mode: `vCont;t:TID` stops one thread (its stop comes as a `%Stop` notification),
    // `vCont;c:TID` (`vCont;CSIG:TID`) runs it again; the other threads run on. interruptThread
    // is false when the server refused with `E NN` (a thread that has gone).
    Result<bool> interruptThread(const std::string& thread);
    Status resumeThread(const std::string& thread, int signal = 0);
    // The next stop reply; console output before it goes to the console callback. In non-stop
    // mode further stops that vStopped reported come next, in order.
    Result<StopReply> waitForStop(std::chrono::milliseconds timeout);
    // Whether anything (a stop reply, console output, garbage) came from the server before
    // `deadline`, while the target runs: false at the deadline, an error when the connection broke.
    Result<bool> incoming(Clock::time_point deadline);
    // Whether a stop reply has already been received and not yet read (all-stop; nothing is read
    // from the connection): a stale one, when the target was just stopped.
    bool stopReceived() const;
    Status detach(); // `D`: the program keeps running
    Status kill(); // `k`: no reply is required

    const ServerFeatures& features() const { return m_features; }
    const std::optional<StopReply>& lastStop() const { return m_lastStop; }
    bool ackMode() const { return m_ackMode; }
    bool nonStop() const { return m_nonStop; }
    const SessionStats& stats() const { return m_stats; }
    const DecoderStats& decoderStats() const { return m_decoder.stats(); }
    const std::string& peer() const { return m_connection.peer(); }

private:
    Error error(std::string message) const;
    Clock::time_point deadline() const { return Clock::now() + m_options.requestTimeout; }
    Status write(std::string_view raw);
    Status send(std::string_view packet);
    Status awaitAck(const std::string& raw, Clock::time_point deadline);
    Status fill(Clock::time_point deadline); // reads what comes before `deadline` into m_events
    Result<Event> nextEvent(Clock::time_point deadline);
    // The next packet's payload; with `notifications`, a notification's as "%Stop:...".
    Result<std::string> receive(Clock::time_point deadline, bool notifications = false);
    Result<std::string> nextStopText(Clock::time_point deadline);
    Result<bool> handleBad(const Event& event);
    Status unsolicited(const Event& event);
    Result<StopReply> drainStopped(StopReply first);
    bool consoleOutput(const std::string& packet);
    Result<StopReply> recordStop(Result<StopReply> reply);
    void dropEchoes(const std::string& reply);

    Connection m_connection;
    SessionOptions m_options;
    PacketDecoder m_decoder;
    std::deque<Event> m_events;
    std::deque<std::string> m_notifications;
    // Non-stop: stops vStopped reported after the first; all-stop: a stop that came before the
    // answer of readRegisterRunning.
    std::deque<StopReply> m_pendingStops;
    ServerFeatures m_features;
    std::optional<StopReply> m_lastStop;
    SessionStats m_stats;
    bool m_ackMode = true;
    bool m_nonStop = false;
    bool m_useVCont = false;
    bool m_vContStep = false; // vCont? offered s: a step names its thread
    std::size_t m_echoesOwed = 0; // sends of the last packet after its `+` was overdue
};

} // namespace ppe::gdbremote
