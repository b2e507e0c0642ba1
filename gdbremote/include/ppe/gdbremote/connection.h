// A byte stream to a GDB remote server: a TCP socket (or any connected descriptor, such as one
// end of a socketpair in tests), with deadlines on every wait.
#pragma once

#include "ppe/support/result.h"

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <variant>

namespace ppe::gdbremote {

using Clock = std::chrono::steady_clock;
using Status = Result<std::monostate>;

class Connection {
public:
    // Takes ownership of a connected descriptor; `peer` names it in messages ("localhost:1234").
    Connection(int fd, std::string peer);
    ~Connection();
    Connection(Connection&& other) noexcept;
    Connection& operator=(Connection&& other) noexcept;
    Connection(const Connection&) = delete;

    // Connects to "HOST:PORT" (a name or an address, IPv4 or IPv6 "[::1]:PORT") within `timeout`.
    static Result<Connection> connectTcp(const std::string& hostPort, std::chrono::milliseconds timeout);

    Status write(std::string_view bytes);
    // Some bytes (at least one) before `deadline`; an error on timeout, end of stream or failure.
    Result<std::string> read(Clock::time_point deadline);
    const std::string& peer() const { return m_peer; }
    int fd() const { return m_fd; }

private:
    int m_fd;
    std::string m_peer;
};

} // namespace ppe::gdbremote
