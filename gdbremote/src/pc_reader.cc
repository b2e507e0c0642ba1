#include "ppe/gdbremote/pc_reader.h"

#include "ppe/gdbremote/hex.h"

namespace ppe::gdbremote {

const char* pcStrategyName(PcStrategy strategy)
{
    switch (strategy) {
    case PcStrategy::None:
        return "none";
    case PcStrategy::RegisterPacket:
        return "p (one register)";
    case PcStrategy::AllRegisters:
        return "g (all registers)";
    case PcStrategy::StopReply:
        return "stop reply (expedited)";
    }
    return "?";
}

std::string PcProbe::str() const
{
    auto yes = [](bool ok, const std::string& note) { return ok ? std::string("yes") : "no (" + note + ")"; };
    return std::string("p: ") + yes(registerPacket, registerPacketNote) + "\ng: " + yes(allRegisters, allRegistersNote)
        + (allRegisters ? ", " + std::to_string(allRegistersBytes) + " bytes" : std::string())
        + "\nexpedited in stop reply: " + (expedited ? "yes" : "no") + "\nchosen: " + pcStrategyName(strategy);
}

PcReader::PcReader(Session& session, RegisterInfo pc, bool bigEndian)
    : m_session(session)
    , m_pc(std::move(pc))
    , m_bigEndian(bigEndian)
{
}

Result<std::uint64_t> PcReader::value(std::string_view hex, const char* what) const
{
    auto bytes = fromHex(hex);
    auto number = bytes && bytes->size() == m_pc.bytes() ? registerValue(*bytes, m_bigEndian) : std::nullopt;
    if (!number)
        return Error { m_session.peer(), 0,
            std::string(what) + ": not " + std::to_string(m_pc.bytes()) + " bytes of " + m_pc.name + ": '"
                + std::string(hex.substr(0, 40)) + "'" };
    return *number;
}

Result<std::uint64_t> PcReader::viaRegisterPacket()
{
    auto reply = m_session.readRegister(m_pc.regnum);
    if (!reply || reply->empty())
        return reply ? Error { m_session.peer(), 0, "empty reply: unsupported" } : reply.error();
    return value(*reply, "p");
}

Result<std::uint64_t> PcReader::readRunning()
{
    auto reply = m_session.readRegisterRunning(m_pc.regnum);
    if (!reply || reply->empty())
        return reply ? Error { m_session.peer(), 0, "no `p` packet: the PC cannot be read while the target runs" }
                     : reply.error();
    if (reply->size() == 3 && reply->front() == 'E')
        return Error { m_session.peer(), 0,
            "the server refused to read the PC while the target runs (" + *reply + ")" };
    return value(*reply, "p");
}

Result<std::uint64_t> PcReader::viaAllRegisters(std::size_t* replyBytes)
{
    auto reply = m_session.readRegisters();
    if (!reply)
        return reply.error();
    if (replyBytes)
        *replyBytes = reply->size() / 2;
    std::size_t at = m_pc.offset * 2, length = m_pc.bytes() * 2;
    if (reply->size() < at + length)
        return Error { m_session.peer(), 0,
            "reply of " + std::to_string(reply->size() / 2) + " bytes ends before " + m_pc.name };
    return value(std::string_view(*reply).substr(at, length), "g");
}

Result<std::uint64_t> PcReader::viaStopReply()
{
    const auto& stop = m_session.lastStop();
    auto found = stop ? stop->registers.find(m_pc.regnum) : decltype(stop->registers.end()) {};
    if (!stop || found == stop->registers.end())
        return Error { m_session.peer(), 0, "the stop reply did not carry " + m_pc.name };
    return value(toHex(found->second), "stop reply");
}

Result<PcProbe> PcReader::probe()
{
    PcProbe probe;
    auto p = viaRegisterPacket();
    probe.registerPacket = p.ok();
    probe.registerPacketNote = p ? std::string() : p.error().message;
    auto g = viaAllRegisters(&probe.allRegistersBytes);
    probe.allRegisters = g.ok();
    probe.allRegistersNote = g ? std::string() : g.error().message;
    probe.expedited = viaStopReply().ok();
    if (probe.registerPacket)
        probe.strategy = PcStrategy::RegisterPacket;
    else if (probe.allRegisters)
        probe.strategy = PcStrategy::AllRegisters;
    else if (probe.expedited)
        probe.strategy = PcStrategy::StopReply;
    m_probe = probe;
    if (probe.strategy == PcStrategy::None)
        return Error { m_session.peer(), 0,
            "no way to read " + m_pc.name + ": " + probe.registerPacketNote + "; " + probe.allRegistersNote };
    return probe;
}

Result<std::uint64_t> PcReader::read()
{
    switch (m_probe.strategy) {
    case PcStrategy::RegisterPacket:
        return viaRegisterPacket();
    case PcStrategy::AllRegisters:
        return viaAllRegisters();
    case PcStrategy::StopReply:
        return viaStopReply();
    case PcStrategy::None:
        break;
    }
    return Error { m_session.peer(), 0, "the pc reader was not probed" };
}

Result<std::uint64_t> PcReader::readThread(const std::string& thread)
{
    if (!readsAnyThread())
        return Error { m_session.peer(), 0,
            "the PC of another thread cannot be read: the server has no p or g for it" };
    if (auto selected = m_session.selectThread(thread); !selected)
        return selected.error();
    return m_probe.strategy == PcStrategy::RegisterPacket ? viaRegisterPacket() : viaAllRegisters();
}

Result<std::uint64_t> PcReader::readStopped(const StopReply& stop)
{
    if (auto found = stop.registers.find(m_pc.regnum); found != stop.registers.end())
        return value(toHex(found->second), "stop reply");
    if (stop.thread.empty())
        return read();
    return readThread(stop.thread);
}

} // namespace ppe::gdbremote
