#include "fake_peer.h"

#include "ppe/gdbremote/packet.h"

#include <chrono>
#include <fstream>
#include <gtest/gtest.h>
#include <poll.h>
#include <sstream>
#include <sys/socket.h>
#include <unistd.h>

namespace ppe::gdbremote::testing {

FakePeer::FakePeer(std::vector<TranscriptLine> script, PeerOptions options)
    : m_script(std::move(script))
    , m_options(options)
{
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        ADD_FAILURE() << "socketpair failed";
    m_fd = fds[0];
    m_clientFd = fds[1];
    m_thread = std::thread([this] { run(); });
}

FakePeer::~FakePeer()
{
    finish();
    if (m_clientFd >= 0)
        ::close(m_clientFd);
}

Connection FakePeer::client()
{
    int fd = m_clientFd;
    m_clientFd = -1;
    return Connection(fd, "fake-peer");
}

void FakePeer::release()
{
    std::lock_guard lock(m_mutex);
    ++m_releases;
    m_released.notify_all();
}

std::string FakePeer::finish()
{
    if (m_thread.joinable())
        m_thread.join();
    return m_failure;
}

bool FakePeer::hold()
{
    std::unique_lock lock(m_mutex);
    bool released = m_released.wait_for(lock, std::chrono::seconds(10), [this] { return m_releases > 0; });
    if (released)
        --m_releases;
    return released;
}

static bool readSome(int fd, std::string& into)
{
    pollfd p { fd, POLLIN, 0 };
    if (::poll(&p, 1, 10000) <= 0)
        return false;
    char buffer[4096];
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n <= 0)
        return false;
    into.append(buffer, static_cast<std::size_t>(n));
    return true;
}

bool FakePeer::expect(const std::string& bytes, std::size_t number)
{
    // An acknowledgement the client sent earlier than recorded (TargetControl acknowledges a
    // repeated stop reply already received before its next request; the recording client did so
    // after it) stands for the next `+` the script expects.
    if (bytes == "+" && m_earlyAcks > 0) {
        --m_earlyAcks;
        return true;
    }
    for (;;) {
        if (bytes[0] == '$' && !m_pending.empty() && m_pending[0] == '+') {
            m_pending.erase(0, 1);
            ++m_earlyAcks;
        }
        if (m_pending.size() >= bytes.size() && (bytes[0] != '$' || m_pending[0] != '+'))
            break;
        if (!readSome(m_fd, m_pending)) {
            m_failure = "line " + std::to_string(number) + ": expected '" + escapeTranscriptBytes(bytes)
                + "', the client sent '" + escapeTranscriptBytes(m_pending) + "' and stopped";
            m_pending.clear();
            return false;
        }
    }
    std::string got = m_pending.substr(0, bytes.size());
    m_pending.erase(0, bytes.size());
    if (got == bytes)
        return true;
    m_failure = "line " + std::to_string(number) + ": expected '" + escapeTranscriptBytes(bytes) + "', got '"
        + escapeTranscriptBytes(got + m_pending) + "'";
    m_pending.clear();
    return false;
}

static bool isResume(const std::string& bytes)
{
    return bytes.rfind("$vCont;c#", 0) == 0 || bytes.rfind("$c#", 0) == 0;
}

static bool isStop(const std::string& bytes)
{
    return bytes.size() > 2 && bytes[0] == '$' && std::string("TSWX").find(bytes[1]) != std::string::npos;
}

bool FakePeer::play(const TranscriptLine& line, std::size_t number)
{
    if (line.direction == '>') {
        m_resumed |= isResume(line.bytes);
        return expect(line.bytes, number);
    }
    if (m_options.holdStops && m_resumed && isStop(line.bytes)) {
        m_resumed = false;
        if (!hold()) {
            m_failure = "line " + std::to_string(number) + ": the client never interrupted";
            return false;
        }
    }
    std::size_t step = m_options.chunk ? m_options.chunk : line.bytes.size();
    for (std::size_t at = 0; at < line.bytes.size(); at += step) {
        std::string_view piece = std::string_view(line.bytes).substr(at, step);
        if (::send(m_fd, piece.data(), piece.size(), MSG_NOSIGNAL) != static_cast<ssize_t>(piece.size()))
            return true; // the client has gone: what it sent so far decides
    }
    return true;
}

void FakePeer::run()
{
    for (std::size_t i = 0; i < m_script.size(); ++i) {
        if (!play(m_script[i], i + 1))
            break;
    }
    if (m_options.stall && m_failure.empty())
        hold();
    ::shutdown(m_fd, SHUT_RDWR);
    ::close(m_fd);
}

static std::string readText(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<TranscriptLine> loadTranscript(const std::string& name)
{
    std::string path = std::string(PPE_GDB_REMOTE_DIR) + "/" + name + ".txt";
    auto lines = parseTranscript(readText(path), path);
    EXPECT_TRUE(lines.ok()) << (lines ? "" : lines.error().str());
    EXPECT_FALSE(lines ? lines->empty() : true) << path;
    return lines ? *lines : std::vector<TranscriptLine> {};
}

std::vector<std::uint64_t> reportedPcs(const std::string& name)
{
    std::istringstream in(readText(std::string(PPE_GDB_REMOTE_DIR) + "/" + name + ".report"));
    std::vector<std::uint64_t> pcs;
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("pc 0x", 0) == 0)
            pcs.push_back(std::stoull(line.substr(5), nullptr, 16));
    }
    return pcs;
}

bool reportSays(const std::string& name, const std::string& text)
{
    return readText(std::string(PPE_GDB_REMOTE_DIR) + "/" + name + ".report").find(text) != std::string::npos;
}

static std::string payload(const std::string& raw)
{
    PacketDecoder decoder;
    std::vector<Event> events;
    decoder.feed(raw, events);
    return events.size() == 1 && events[0].kind == EventKind::Packet ? events[0].data : std::string();
}

std::map<std::string, std::string> documentsOf(const std::string& transcript)
{
    std::map<std::string, std::string> docs;
    std::string current;
    for (const auto& line : loadTranscript(transcript)) {
        std::string data = payload(line.bytes);
        constexpr std::string_view prefix = "qXfer:features:read:";
        if (line.direction == '>' && data.rfind(prefix, 0) == 0)
            current = data.substr(prefix.size(), data.find(':', prefix.size()) - prefix.size());
        else if (line.direction == '<' && !current.empty() && !data.empty() && (data[0] == 'm' || data[0] == 'l'))
            docs[current] += data.substr(1);
    }
    return docs;
}

} // namespace ppe::gdbremote::testing
