// For tests that start a local debug server (gdbserver, QEMU's GDB stub): a free TCP port on the
// loopback interface, and whether a tool is there to run. Header-only: the ARC unit tests use it
// without the rest of the test support library.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string>
#include <sys/socket.h>
#include <unistd.h>

namespace ppe::testing {

// A port no one listens on now (the kernel's choice for an unbound socket), 0 when none was found.
inline int freePort()
{
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return 0;
    sockaddr_in addr {};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0
        && ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    ::close(fd);
    return ok ? ntohs(addr.sin_port) : 0;
}

// True when `path` names a file this process may execute.
inline bool executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

} // namespace ppe::testing
