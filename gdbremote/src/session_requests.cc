// The requests of Session: what each packet means and how its reply reads.
#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/session.h"

#include <algorithm>

namespace ppe::gdbremote {

static bool hasPrefix(std::string_view text, std::string_view prefix)
{
    return text.substr(0, prefix.size()) == prefix;
}

static void applyFeature(std::string_view item, ServerFeatures& f)
{
    if (hasPrefix(item, "PacketSize=")) {
        auto size = parseHexNumber(item.substr(11));
        f.packetSize = size && *size < (1u << 24) ? static_cast<std::size_t>(*size) : 0;
    }
    f.featuresRead |= item == "qXfer:features:read+";
    f.noAckMode |= item == "QStartNoAckMode+";
    f.vContSupported |= item == "vContSupported+";
    f.multiprocess |= item == "multiprocess+";
    f.nonStop |= item == "QNonStop+";
    f.librariesRead |= item == "qXfer:libraries-svr4:read+" || item == "qXfer:libraries:read+";
    f.librariesSvr4 |= item == "qXfer:libraries-svr4:read+";
    f.auxvRead |= item == "qXfer:auxv:read+";
    f.threadsRead |= item == "qXfer:threads:read+";
}

ServerFeatures parseFeatures(std::string_view reply)
{
    ServerFeatures f;
    f.reply = std::string(reply);
    while (!reply.empty()) {
        auto semi = reply.find(';');
        applyFeature(reply.substr(0, semi), f);
        reply = semi == std::string_view::npos ? std::string_view() : reply.substr(semi + 1);
    }
    return f;
}

Result<ServerFeatures> Session::negotiate()
{
    // xmlRegisters=i386: without it gdbserver's x86 port describes no registers in XML.
    auto reply = request(std::string("qSupported:multiprocess+;") + (m_options.swbreak ? "swbreak+;" : "")
        + "vContSupported+;xmlRegisters=i386");
    if (!reply)
        return reply.error();
    m_features = parseFeatures(*reply);
    if (m_features.packetSize)
        m_decoder.setMaxPacket(std::max<std::size_t>(m_features.packetSize * 2, 4096));
    if (m_features.noAckMode) {
        auto ok = request("QStartNoAckMode");
        if (!ok)
            return ok.error();
        m_ackMode = *ok != "OK";
    }
    if (m_features.vContSupported) {
        auto actions = request("vCont?");
        if (!actions)
            return actions.error();
        m_useVCont = hasPrefix(*actions, "vCont") && actions->find(";c") != std::string::npos;
        m_vContStep = m_useVCont && actions->find(";s") != std::string::npos;
    }
    return m_features;
}

Result<StopReply> Session::recordStop(Result<StopReply> reply)
{
    if (reply)
        m_lastStop = *reply;
    return reply;
}

Result<StopReply> Session::haltReason()
{
    auto reply = request("?");
    if (!reply)
        return reply.error();
    if (m_nonStop && *reply == "OK")
        return error("no thread is stopped");
    auto stop = parseStopReply(*reply);
    if (!stop)
        return error(stop.error().message);
    if (m_nonStop)
        return recordStop(drainStopped(*stop));
    return recordStop(std::move(stop));
}

static Result<std::string> checked(Result<std::string> reply, const char* what)
{
    if (reply && reply->size() == 3 && reply->front() == 'E')
        return Error { {}, 0, std::string(what) + " failed: " + *reply };
    return reply;
}

Result<std::string> Session::readRegisters() { return checked(request("g"), "reading the registers"); }

Result<std::string> Session::readRegister(unsigned regnum) { return request("p" + hexNumber(regnum)); }

} // namespace ppe::gdbremote
