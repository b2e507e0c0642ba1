// The transport half of Session: frames out with acks and retransmits, frames in with NAKs,
// notifications queued, garbage skipped.
#include "ppe/gdbremote/session.h"

#include <algorithm>

namespace ppe::gdbremote {

Session::Session(Connection connection, SessionOptions options)
    : m_connection(std::move(connection))
    , m_options(std::move(options))
{
}

Result<Session> Session::connect(const std::string& hostPort, std::chrono::milliseconds timeout, SessionOptions options)
{
    auto connection = Connection::connectTcp(hostPort, timeout);
    if (!connection)
        return connection.error();
    return Session(std::move(connection).value(), std::move(options));
}

Error Session::error(std::string message) const { return Error { m_connection.peer(), 0, std::move(message) }; }

Status Session::write(std::string_view raw)
{
    if (m_options.tap)
        m_options.tap('>', raw);
    return m_connection.write(raw);
}

Status Session::fill(Clock::time_point deadline)
{
    auto bytes = m_connection.read(deadline);
    if (!bytes && m_decoder.inFrame())
        return error(bytes.error().message + " (in the middle of a packet)");
    if (!bytes)
        return bytes.error();
    std::vector<Event> events;
    m_decoder.feed(*bytes, events);
    for (auto& e : events) {
        if (m_options.tap)
            m_options.tap('<', e.raw);
        m_events.push_back(std::move(e));
    }
    return std::monostate {};
}

Result<bool> Session::incoming(Clock::time_point deadline)
{
    if (!m_pendingStops.empty() || (m_nonStop && !m_notifications.empty()))
        return true;
    while (m_events.empty()) {
        if (auto filled = fill(deadline); !filled)
            return Clock::now() >= deadline && !m_decoder.inFrame() ? Result<bool>(false) : filled.error();
    }
    return true;
}

bool Session::stopReceived() const
{
    for (const Event& event : m_events)
        if (event.kind == EventKind::Packet && !event.data.empty())
            return event.data[0] == 'T' || event.data[0] == 'S' || event.data[0] == 'W' || event.data[0] == 'X';
    return false;
}

Result<Event> Session::nextEvent(Clock::time_point deadline)
{
    while (m_events.empty()) {
        if (auto filled = fill(deadline); !filled)
            return filled.error();
    }
    Event event = std::move(m_events.front());
    m_events.pop_front();
    return event;
}

// Waits for the `+` of our packet `raw`, sending it again on a `-` or when no ack comes within
// ackTimeout. A frame before the ack is unsolicited: QEMU's user-mode stub, after a 0x03, repeats
// its stop reply and reads our packet's bytes while waiting for its own ack, losing them. Such a
// frame is acknowledged and set aside, and the packet goes again when its ack does not come.
Status Session::awaitAck(const std::string& raw, Clock::time_point deadline)
{
    for (int attempts = 0;;) {
        auto ackDeadline = std::min(deadline, Clock::now() + m_options.ackTimeout);
        auto event = nextEvent(ackDeadline);
        bool timedOut = !event && Clock::now() >= ackDeadline;
        if (!event && (!timedOut || ackDeadline == deadline))
            return event.error();
        if (event && event->kind == EventKind::Ack)
            return std::monostate {};
        if (event && event->kind != EventKind::Nak) {
            if (auto handled = unsolicited(*event); !handled)
                return handled;
            continue;
        }
        ++m_stats.retransmits;
        m_echoesOwed += !event; // its `+` late, not lost: it may be answered twice
        if (++attempts > m_options.maxRetransmits)
            return error("the server did not accept a packet in " + std::to_string(attempts) + " tries");
        if (auto sent = write(raw); !sent)
            return sent;
    }
}

Status Session::unsolicited(const Event& event)
{
    if (event.kind == EventKind::Notification) {
        ++m_stats.notifications;
        m_notifications.push_back(event.data);
        return std::monostate {};
    }
    if (event.kind != EventKind::Packet) {
        auto handled = handleBad(event);
        return handled ? Status(std::monostate {}) : Status(handled.error());
    }
    ++m_stats.unsolicited;
    return write("+");
}

Status Session::send(std::string_view packet)
{
    m_echoesOwed = 0;
    std::string raw = frame(packet);
    if (auto sent = write(raw); !sent)
        return sent;
    if (!m_ackMode)
        return std::monostate {};
    return awaitAck(raw, deadline());
}

// A frame that is not a good packet: NAK a bad checksum (in ack mode) and go on, skip stray acks
// and garbage; true to keep receiving, an error to stop.
Result<bool> Session::handleBad(const Event& event)
{
    if (event.kind == EventKind::Oversized)
        return error("a reply longer than " + std::to_string(m_decoder.maxPacket()) + " bytes");
    if (event.kind == EventKind::BadChecksum) {
        if (!m_ackMode)
            return error("a reply with a bad checksum in no-ack mode");
        if (++m_stats.naksSent > static_cast<std::size_t>(m_options.maxRetransmits) * 4)
            return error("too many replies with bad checksums");
        if (auto sent = write("-"); !sent)
            return sent.error();
    }
    if (event.kind == EventKind::Ack || event.kind == EventKind::Nak)
        ++m_stats.strayAcks;
    return true;
}

Result<std::string> Session::receive(Clock::time_point deadline, bool notifications)
{
    for (;;) {
        auto event = nextEvent(deadline);
        if (!event)
            return event.error();
        if (event->kind == EventKind::Notification) {
            ++m_stats.notifications;
            if (notifications)
                return "%" + event->data;
            m_notifications.push_back(std::move(event->data));
            continue;
        }
        if (event->kind != EventKind::Packet) {
            if (auto keep = handleBad(*event); !keep)
                return keep.error();
            continue;
        }
        // The reply is whole whether or not its ack can still be sent: a broken connection shows
        // at the next request.
        if (m_ackMode)
            (void)write("+");
        return std::move(event->data);
    }
}

// Whether `packet` is answered by a stop reply: `?`, and what runs or attaches to the target.
static bool answeredByStop(std::string_view packet)
{
    if (packet == "?" || packet == "vStopped")
        return true;
    if (packet.rfind("vCont", 0) == 0)
        return packet != "vCont?";
    if (packet.rfind("vAttach", 0) == 0 || packet.rfind("vRun", 0) == 0)
        return true;
    return !packet.empty() && (packet[0] == 'c' || packet[0] == 'C' || packet[0] == 's' || packet[0] == 'S');
}

// A packet sent again because its `+` was overdue, not lost (the server stalled for longer than
// ackTimeout: qemu-arc on a loaded machine), is acknowledged and answered twice, the second time
// after ours was acknowledged. Left queued, that echo would answer the next request (ppe-arc under
// qemu-arc: "qfThreadInfo reply '00050100'", a `p` reply). Each echo owed is waited for up to
// ackTimeout and dropped; anything else is left for what follows. A copy that was really lost
// (QEMU reading our bytes as the ack of its own repeated stop) costs that wait once.
void Session::dropEchoes(const std::string& reply)
{
    for (; m_echoesOwed > 0; --m_echoesOwed) {
        const Clock::time_point until = Clock::now() + m_options.ackTimeout;
        for (bool dropped = false; !dropped;) {
            auto event = nextEvent(until);
            if (!event) // none came, or the connection failed: the next request says so
                return (void)(m_echoesOwed = 0);
            if (event->kind == EventKind::Ack) {
                ++m_stats.strayAcks;
                continue;
            }
            dropped = event->kind == EventKind::Packet && event->data == reply;
            if (!dropped) {
                m_events.push_front(std::move(*event));
                return (void)(m_echoesOwed = 0);
            }
            ++m_stats.echoes;
            if (m_ackMode)
                (void)write("+");
        }
    }
}

// A `T`/`S` stop reply to a packet that no stop answers: a stale stop that came late. QEMU answers
// a 0x03 it read as a bad acknowledgement with a second stop, and that one can come after the ack
// of the next packet, where the ack-time check cannot see it, in place of the reply. It is
// counted and the real reply read; no other reply starts with T or S and two hex digits.
Result<std::string> Session::request(std::string_view packet)
{
    if (auto sent = send(packet); !sent)
        return sent.error();
    const bool stopExpected = m_nonStop || answeredByStop(packet);
    for (int late = 0;; ++late) {
        auto reply = receive(deadline());
        if (!reply || stopExpected || late == 8 || reply->empty() || (reply->front() != 'T' && reply->front() != 'S')
            || !parseStopReply(*reply)) {
            if (reply && !stopExpected)
                dropEchoes(*reply);
            return reply;
        }
        ++m_stats.lateStops;
    }
}

} // namespace ppe::gdbremote
