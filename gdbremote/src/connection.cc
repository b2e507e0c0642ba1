#include "ppe/gdbremote/connection.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ppe::gdbremote {

static Error failure(const std::string& peer, const std::string& what) { return Error { peer, 0, what }; }

Connection::Connection(int fd, std::string peer)
    : m_fd(fd)
    , m_peer(std::move(peer))
{
}

Connection::~Connection()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

Connection::Connection(Connection&& other) noexcept
    : m_fd(other.m_fd)
    , m_peer(std::move(other.m_peer))
{
    other.m_fd = -1;
}

Connection& Connection::operator=(Connection&& other) noexcept
{
    std::swap(m_fd, other.m_fd);
    std::swap(m_peer, other.m_peer);
    return *this;
}

// What is left until `deadline`, not less than zero (ppoll: the loop's deadlines are finer than
// poll's milliseconds).
static timespec remaining(Clock::time_point deadline)
{
    auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(deadline - Clock::now()).count();
    left = left < 0 ? 0 : left;
    return timespec { static_cast<time_t>(left / 1'000'000'000), static_cast<long>(left % 1'000'000'000) };
}

// Waits for `events` on `fd` until `deadline`; 1 ready, 0 timed out, -1 failed (errno).
static int waitFor(int fd, short events, Clock::time_point deadline)
{
    for (;;) {
        pollfd p { fd, events, 0 };
        const timespec left = remaining(deadline);
        int n = ::ppoll(&p, 1, &left, nullptr);
        if (n >= 0 || errno != EINTR)
            return n;
    }
}

static bool splitHostPort(const std::string& hostPort, std::string& host, std::string& port)
{
    auto colon = hostPort.rfind(':');
    if (colon == std::string::npos || colon + 1 == hostPort.size())
        return false;
    host = hostPort.substr(0, colon);
    port = hostPort.substr(colon + 1);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
        host = host.substr(1, host.size() - 2);
    if (host.empty())
        host = "localhost";
    return true;
}

// A non-blocking connect to one address, finished within `deadline`; the descriptor or -1.
static int connectOne(const addrinfo* ai, Clock::time_point deadline, std::string& why)
{
    int fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) {
        why = std::strerror(errno);
        return -1;
    }
    int err = ::connect(fd, ai->ai_addr, ai->ai_addrlen) == 0 ? 0 : errno;
    if (err == EINPROGRESS) {
        int ready = waitFor(fd, POLLOUT, deadline);
        socklen_t len = sizeof err;
        err = ready == 0 ? ETIMEDOUT : ready < 0 ? errno : 0;
        if (ready > 0)
            ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    }
    if (err) {
        why = err == ETIMEDOUT ? "connection timed out" : std::strerror(err);
        ::close(fd);
        return -1;
    }
    ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

Result<Connection> Connection::connectTcp(const std::string& hostPort, std::chrono::milliseconds timeout)
{
    std::string host, port;
    if (!splitHostPort(hostPort, host, port))
        return failure(hostPort, "expected HOST:PORT");
    addrinfo hints {};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* list = nullptr;
    if (int rc = ::getaddrinfo(host.c_str(), port.c_str(), &hints, &list))
        return failure(hostPort, std::string("cannot resolve: ") + ::gai_strerror(rc));
    auto deadline = Clock::now() + timeout;
    std::string why = "no address";
    int fd = -1;
    for (const addrinfo* ai = list; ai && fd < 0; ai = ai->ai_next)
        fd = connectOne(ai, deadline, why);
    ::freeaddrinfo(list);
    if (fd < 0)
        return failure(hostPort, "cannot connect: " + why);
    return Connection(fd, hostPort);
}

Status Connection::write(std::string_view bytes)
{
    while (!bytes.empty()) {
        ssize_t n = ::send(m_fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return failure(m_peer, std::string("cannot send: ") + std::strerror(errno));
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return std::monostate {};
}

Result<std::string> Connection::read(Clock::time_point deadline)
{
    int ready = waitFor(m_fd, POLLIN, deadline);
    if (ready == 0)
        return failure(m_peer, "no answer before the deadline");
    if (ready < 0)
        return failure(m_peer, std::string("cannot wait: ") + std::strerror(errno));
    char buffer[4096];
    ssize_t n;
    do
        n = ::read(m_fd, buffer, sizeof buffer);
    while (n < 0 && errno == EINTR);
    if (n == 0)
        return failure(m_peer, "connection closed by the server");
    if (n < 0)
        return failure(m_peer, std::string("cannot receive: ") + std::strerror(errno));
    return std::string(buffer, static_cast<std::size_t>(n));
}

} // namespace ppe::gdbremote
