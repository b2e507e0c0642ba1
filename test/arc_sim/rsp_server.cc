#include "rsp_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace ppe::arc::sim {

RspServer::RspServer(SimTarget& target, ServerOptions options)
    : m_target(target)
    , m_options(options)
    , m_layout(makeLayout(options.personality, options.pctFeature))
    , m_replies(repliesOf(options.personality))
{
}

RspServer::~RspServer()
{
    if (m_fd >= 0)
        ::close(m_fd);
    if (m_listen >= 0)
        ::close(m_listen);
}

Result<uint16_t> RspServer::listen(uint16_t port)
{
    m_listen = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int reuse = 1; // a port a server of the run before left in TIME_WAIT (ppe-arc descend --spawn)
    if (m_listen >= 0)
        ::setsockopt(m_listen, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof(reuse));
    sockaddr_in address {};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(port);
    socklen_t length = sizeof(address);
    if (m_listen < 0 || ::bind(m_listen, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0
        || ::listen(m_listen, 1) != 0 || ::getsockname(m_listen, reinterpret_cast<sockaddr*>(&address), &length) != 0)
        return Error { "", 0, std::string("cannot listen on 127.0.0.1: ") + std::strerror(errno) };
    return uint16_t(ntohs(address.sin_port));
}

gdbremote::Status RspServer::serve()
{
    if (m_fd >= 0) // a connection before this one (ppe-arc-sim --connections): a new session
        ::close(m_fd);
    // As OpenOCD halts the core when GDB attaches: the machine stands where the last one left it.
    m_decoder = gdbremote::PacketDecoder();
    m_ackMode = true;
    m_awaitingAck = m_running = m_done = false;
    m_lastSent.clear();
    m_fd = ::accept4(m_listen, nullptr, nullptr, SOCK_CLOEXEC);
    if (m_fd < 0)
        return Error { "", 0, std::string("accept: ") + std::strerror(errno) };
    while (!m_done) {
        if (!m_running) {
            if (!pump(50))
                break;
            continue;
        }
        if (m_outside.exchange(false)) {
            stopped(2);
            continue;
        }
        // qemu's user-mode stub reads nothing while the guest runs: 0x03 waits in the socket.
        if (m_replies.readsWhileRunning && !pump(0))
            break;
        if (m_running)
            runSlice();
    }
    return std::monostate {};
}

void RspServer::runSlice()
{
    Machine::Event event;
    {
        std::lock_guard<std::mutex> lock(m_target.mutex());
        event = m_target.machine().run(m_options.sliceSteps, m_overFirst);
    }
    m_overFirst = false;
    if (event == Machine::Event::Breakpoint)
        stopped(5);
    else if (event == Machine::Event::Ended)
        ended();
    else
        std::this_thread::sleep_for(m_options.slicePause);
}

void RspServer::stopped(int signal)
{
    m_running = false;
    m_lastSignal = signal;
    ++m_stats.stops;
    send(stopReply(signal));
}

void RspServer::ended()
{
    if (m_replies.haltAtEnd) { // a bare-metal core halts (brk); the probe reports a stop
        stopped(5);
        return;
    }
    m_running = false;
    m_exited = true;
    send(stopReply(0));
}

bool RspServer::pump(int timeoutMs)
{
    pollfd p { m_fd, POLLIN, 0 };
    const int ready = ::poll(&p, 1, timeoutMs);
    if (ready < 0)
        return errno == EINTR;
    if (ready == 0)
        return true;
    char buffer[4096];
    const ssize_t n = ::recv(m_fd, buffer, sizeof(buffer), 0);
    if (n <= 0)
        return false;
    std::vector<gdbremote::Event> events;
    m_decoder.feed(std::string_view(buffer, size_t(n)), events);
    for (const gdbremote::Event& e : events) {
        if (!m_done)
            handle(e);
    }
    return true;
}

void RspServer::handle(const gdbremote::Event& event)
{
    using gdbremote::EventKind;
    switch (event.kind) {
    case EventKind::Ack:
        m_awaitingAck = false;
        return;
    case EventKind::Nak:
        ++m_stats.retransmits;
        sendRaw(m_lastSent);
        return;
    case EventKind::Interrupt:
        if (m_running)
            stopped(2);
        else if (m_options.personality == Personality::Qemu)
            send(stopReply(m_lastSignal)); // what qemu-arc does with a 0x03 read once stopped
        return;
    case EventKind::BadChecksum:
        if (m_ackMode)
            sendRaw("-");
        return;
    case EventKind::Packet:
        break;
    default:
        return;
    }
    ++m_stats.packets;
    if (m_ackMode)
        sendRaw("+");
    if (m_running)
        whileRunning(event.data);
    else
        packet(event.data);
}

void RspServer::sendRaw(const std::string& raw)
{
    for (size_t done = 0; done < raw.size();) {
        const ssize_t n = ::send(m_fd, raw.data() + done, raw.size() - done, MSG_NOSIGNAL);
        if (n <= 0) {
            m_done = true;
            return;
        }
        done += size_t(n);
    }
}

void RspServer::send(const std::string& payload)
{
    const std::string raw = gdbremote::frame(payload);
    sendRaw(raw);
    if (m_ackMode) {
        m_lastSent = raw;
        m_awaitingAck = true;
    }
}

} // namespace ppe::arc::sim
