// Session requests that read documents, run and stop the target, and end the session.
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/xml.h"

namespace ppe::gdbremote {

constexpr std::size_t kMaxDocument = 1 << 20;

Result<std::string> Session::readFeatureDocument(const std::string& annex) { return readXfer("features", annex); }

Result<std::string> Session::readXfer(const std::string& object, const std::string& annex)
{
    // Leave room for the `m`, the frame and escapes of the reply within the server's PacketSize.
    std::size_t chunk = m_features.packetSize > 64 ? m_features.packetSize - 32 : 0x400;
    const std::string what = annex.empty() ? object : annex;
    std::string document;
    for (;;) {
        auto reply = request("qXfer:" + object + ":read:" + annex + ":" + hexNumber(document.size()) + ","
            + hexNumber(std::min<std::size_t>(chunk, 0x4000)));
        if (!reply)
            return reply.error();
        if (reply->empty() || (reply->front() != 'm' && reply->front() != 'l'))
            return error("cannot read " + what + ": reply '" + reply->substr(0, 20) + "'");
        document.append(*reply, 1);
        if (reply->front() == 'l')
            return document;
        if (reply->size() == 1 || document.size() > kMaxDocument)
            return error("cannot read " + what + ": no end or too long");
    }
}

Result<TargetDescription> Session::readTargetDescription()
{
    if (!m_features.featuresRead)
        return error("the server offers no target description (qXfer:features:read): use --tdesc FILE");
    DocumentFetcher fetch = [this](const std::string& name) { return readFeatureDocument(name); };
    return gdbremote::readTargetDescription("target.xml", fetch);
}

Status Session::enableNonStop()
{
    auto reply = request("QNonStop:1");
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return error("non-stop mode refused: '" + *reply + "'");
    m_nonStop = true;
    return std::monostate {};
}

static Status expectOk(Result<std::string> reply, const Error& context, const char* what)
{
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { context.file, 0, std::string(what) + ": reply '" + reply->substr(0, 40) + "'" };
    return std::monostate {};
}

static std::string continuePacket(bool vCont, int signal)
{
    if (signal > 0 && signal < 256)
        return (vCont ? "vCont;C" : "C") + std::string(signal < 16 ? "0" : "") + hexNumber(unsigned(signal));
    return vCont ? "vCont;c" : "c";
}

Status Session::resume(int signal)
{
    const std::string packet = continuePacket(m_useVCont || m_nonStop, signal);
    if (m_nonStop) {
        m_pendingStops.clear(); // every thread runs again
        return expectOk(request(packet), error({}), "cannot resume");
    }
    return send(packet);
}

Status Session::step(const std::string& thread, int signal)
{
    if (m_nonStop)
        return error("cannot step one instruction in non-stop mode");
    const std::string code = signal > 0 && signal < 256 ? (signal < 16 ? "0" : "") + hexNumber(unsigned(signal)) : "";
    if (m_vContStep)
        return send((code.empty() ? "vCont;s" : "vCont;S" + code) + (thread.empty() ? "" : ":" + thread));
    return send(code.empty() ? "s" : "S" + code);
}

Status Session::resumeThread(const std::string& thread, int signal)
{
    const std::string packet = continuePacket(true, signal) + ":" + thread;
    if (m_nonStop)
        return expectOk(request(packet), error({}), ("cannot resume thread " + thread).c_str());
    return send(packet);
}

Result<bool> Session::interruptThread(const std::string& thread)
{
    auto reply = request("vCont;t:" + thread);
    if (!reply)
        return reply.error();
    if (*reply == "OK")
        return true;
    if (reply->size() == 3 && reply->front() == 'E')
        return false;
    return error("cannot stop thread " + thread + ": reply '" + reply->substr(0, 40) + "'");
}

Status Session::selectThread(const std::string& thread)
{
    return expectOk(request("Hg" + thread), error({}), ("cannot select thread " + thread).c_str());
}

// `<threads><thread id="p7.8" .../>...</threads>`: the ids.
static Result<std::vector<std::string>> threadIds(const std::string& document, const std::string& peer)
{
    auto root = parseXml(document, peer + " threads");
    if (!root)
        return root.error();
    std::vector<std::string> threads;
    for (const XmlElement& thread : root->children)
        if (const std::string* id = thread.name == "thread" ? thread.attribute("id") : nullptr)
            threads.push_back(*id);
    return threads;
}

Result<std::vector<std::string>> Session::threadList()
{
    if (m_features.threadsRead && m_nonStop) {
        auto document = readXfer("threads", "");
        if (!document)
            return document.error();
        return threadIds(*document, peer());
    }
    std::vector<std::string> threads;
    for (const char* packet = "qfThreadInfo"; threads.size() < 100000; packet = "qsThreadInfo") {
        auto reply = request(packet);
        if (!reply)
            return reply.error();
        if (*reply == "l")
            return threads;
        if (reply->empty() || reply->front() != 'm')
            return error(std::string("cannot list the threads: ") + packet + " reply '" + reply->substr(0, 40) + "'");
        for (std::string_view list = std::string_view(*reply).substr(1); !list.empty();) {
            const auto comma = list.find(',');
            if (!list.substr(0, comma).empty())
                threads.emplace_back(list.substr(0, comma));
            list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
        }
    }
    return error("cannot list the threads: no end");
}

Status Session::interrupt()
{
    if (m_nonStop)
        return expectOk(request("vCont;t"), error({}), "cannot interrupt");
    return write(std::string(1, kInterruptByte));
}

bool Session::consoleOutput(const std::string& packet)
{
    if (packet.size() < 3 || packet[0] != 'O' || packet == "OK")
        return false;
    auto text = fromHex(std::string_view(packet).substr(1));
    if (!text)
        return false;
    if (m_options.console)
        m_options.console(*text);
    return true;
}

// The text of the next stop: a reply packet in all-stop mode, a `%Stop:` notification in
// non-stop mode (queued ones first).
Result<std::string> Session::nextStopText(Clock::time_point deadline)
{
    for (;;) {
        if (m_nonStop && !m_notifications.empty()) {
            std::string note = std::move(m_notifications.front());
            m_notifications.pop_front();
            if (note.rfind("Stop:", 0) == 0)
                return "%" + note;
            continue;
        }
        auto text = receive(deadline, m_nonStop);
        if (!text || (*text)[0] == '%' || !consoleOutput(*text))
            return text;
    }
}

Result<StopReply> Session::drainStopped(StopReply first)
{
    for (int i = 0; i < 1000; ++i) {
        auto reply = request("vStopped");
        if (!reply)
            return reply.error();
        if (*reply == "OK")
            return first;
        auto more = parseStopReply(*reply);
        if (!more)
            return error(more.error().message);
        m_pendingStops.push_back(std::move(*more));
    }
    return error("vStopped never answered OK");
}

Result<StopReply> Session::waitForStop(std::chrono::milliseconds timeout)
{
    if (!m_pendingStops.empty()) {
        StopReply next = std::move(m_pendingStops.front());
        m_pendingStops.pop_front();
        return recordStop(std::move(next));
    }
    auto text = nextStopText(Clock::now() + timeout);
    if (!text)
        return text.error();
    bool notification = !text->empty() && (*text)[0] == '%';
    if (notification && text->rfind("%Stop:", 0) != 0)
        return error("unexpected notification '" + text->substr(0, 40) + "'");
    auto reply = parseStopReply(notification ? std::string_view(*text).substr(6) : std::string_view(*text));
    if (!reply)
        return error(reply.error().message);
    if (notification)
        return recordStop(drainStopped(*reply));
    return recordStop(std::move(reply));
}

// The process of a multiprocess thread id "pPID.TID", or "".
static std::string processOf(const std::string& thread)
{
    if (thread.size() < 2 || thread[0] != 'p')
        return {};
    return thread.substr(1, thread.find('.') - 1);
}

Status Session::detach()
{
    // With multiprocess on, gdbserver wants `D;PID` (a bare `D` reads as pid 0: E01).
    std::string pid = m_features.multiprocess && m_lastStop ? processOf(m_lastStop->thread) : std::string();
    // qemu-arc answers a `D` with a stale stop reply of a 0x03 it had queued: request() reads past
    // it to the OK.
    auto reply = request(pid.empty() ? "D" : "D;" + pid);
    return expectOk(std::move(reply), error({}), "cannot detach");
}

Status Session::kill()
{
    if (auto sent = send("k"); !sent)
        return sent;
    // gdbserver answers `X09` with multiprocess, QEMU nothing: read what comes, briefly.
    (void)receive(Clock::now() + std::chrono::milliseconds(300));
    return std::monostate {};
}

Result<std::string> Session::readRegisterRunning(unsigned regnum)
{
    if (auto sent = send("p" + hexNumber(regnum)); !sent)
        return sent.error();
    const Clock::time_point until = deadline();
    for (;;) {
        auto reply = receive(until);
        if (!reply)
            return error("no answer to a register read while the target runs (" + reply.error().message
                + "): this server reads a stopped target only");
        if (consoleOutput(*reply))
            continue;
        // A register's hex text never starts with one of these.
        if (reply->empty() || std::string_view("TSWX").find(reply->front()) == std::string_view::npos)
            return reply;
        auto stop = parseStopReply(*reply);
        if (!stop)
            return reply;
        const bool ended = stop->ended();
        m_pendingStops.push_back(std::move(*stop)); // the target stopped before the answer
        if (ended) // an answer may never come
            return error("the target ended before the register was read");
    }
}

} // namespace ppe::gdbremote
