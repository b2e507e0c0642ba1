// The packets of the simulated target's server (rsp_server.h), answered as each personality does.
#include "rsp_server.h"

#include "ppe/gdbremote/hex.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ppe::arc::sim {

namespace {

    std::string hex32(uint32_t value) // little-endian bytes, as the core holds them
    {
        char text[9];
        std::snprintf(
            text, sizeof(text), "%02x%02x%02x%02x", value & 0xFF, value >> 8 & 0xFF, value >> 16 & 0xFF, value >> 24);
        return text;
    }

    std::optional<uint32_t> fromHex32(std::string_view hex)
    {
        const std::optional<std::string> bytes = gdbremote::fromHex(hex);
        if (!bytes || bytes->size() != 4)
            return std::nullopt;
        return uint32_t(uint8_t((*bytes)[0])) | uint32_t(uint8_t((*bytes)[1])) << 8
            | uint32_t(uint8_t((*bytes)[2])) << 16 | uint32_t(uint8_t((*bytes)[3])) << 24;
    }

    // "ADDR,LENGTH" (hex) with what follows at `rest`.
    bool addressLength(const std::string& args, uint32_t& address, size_t& length, size_t* rest = nullptr)
    {
        char* end = nullptr;
        address = uint32_t(std::strtoul(args.c_str(), &end, 16));
        if (*end != ',')
            return false;
        length = std::strtoul(end + 1, &end, 16);
        if (rest)
            *rest = size_t(end - args.c_str());
        return length <= 0x10000;
    }

    std::string slice(const std::string& object, const std::string& range)
    {
        uint32_t offset = 0;
        size_t length = 0;
        if (!addressLength(range, offset, length))
            return "E01";
        if (offset >= object.size())
            return "l";
        const std::string part = object.substr(offset, length);
        return (offset + part.size() < object.size() ? "m" : "l") + part;
    }

} // namespace

std::string RspServer::thread() const
{
    return m_options.personality == Personality::Gdbserver ? "p4d2.4d2" : "p01.01";
}

std::string RspServer::stopReply(int signal) const
{
    char text[16];
    if (m_exited)
        return m_options.personality == Personality::Gdbserver ? "W00;process:4d2" : "W00";
    std::snprintf(text, sizeof(text), "T%02x", signal);
    switch (m_options.personality) {
    case Personality::OpenOcd:
        return text;
    case Personality::Qemu:
        return std::string(text) + "thread:" + thread() + ";";
    case Personality::Gdbserver:
        break;
    }
    Machine& machine = m_target.machine();
    return std::string(text) + "1c:" + hex32(machine.sp()) + ";22:" + hex32(machine.pc()) + ";thread:" + thread()
        + ";core:0;";
}

const SimRegister* RspServer::registerNumbered(unsigned regnum) const
{
    for (const SimRegister& r : m_layout.registers) {
        if (r.regnum == regnum)
            return &r;
    }
    return nullptr;
}

std::string RspServer::readRegisters()
{
    std::string out;
    for (size_t i = 0; i < m_layout.inG; ++i)
        out += hex32(m_target.readRegister(m_layout.registers[i]));
    return out;
}

std::string RspServer::writeRegisters(const std::string& hex)
{
    if (hex.size() != 8 * m_layout.inG)
        return "E01";
    for (size_t i = 0; i < m_layout.inG; ++i) {
        const std::optional<uint32_t> value = fromHex32(std::string_view(hex).substr(8 * i, 8));
        if (!value || !m_target.writeRegister(m_layout.registers[i], *value))
            return "E01";
    }
    return "OK";
}

std::string RspServer::readRegister(const std::string& args)
{
    const SimRegister* reg = registerNumbered(unsigned(std::strtoul(args.c_str(), nullptr, 16)));
    return reg ? hex32(m_target.readRegister(*reg)) : "E01";
}

std::string RspServer::writeRegister(const std::string& args)
{
    const size_t equals = args.find('=');
    const SimRegister* reg = registerNumbered(unsigned(std::strtoul(args.c_str(), nullptr, 16)));
    const std::optional<uint32_t> value
        = equals == std::string::npos ? std::nullopt : fromHex32(std::string_view(args).substr(equals + 1));
    return reg && value && m_target.writeRegister(*reg, *value) ? "OK" : "E01";
}

std::string RspServer::readMemory(const std::string& args)
{
    uint32_t address = 0;
    size_t length = 0;
    const char* refused = m_options.personality == Personality::Qemu ? "E14" : "E01";
    if (!addressLength(args, address, length))
        return "E01";
    const std::optional<std::string> bytes = m_target.readMemory(address, length);
    return bytes ? gdbremote::toHex(*bytes) : refused;
}

std::string RspServer::writeMemory(const std::string& args, bool binary)
{
    uint32_t address = 0;
    size_t length = 0, colon = 0;
    if (!addressLength(args, address, length, &colon) || colon >= args.size() || args[colon] != ':')
        return "E01";
    std::optional<std::string> bytes = binary ? args.substr(colon + 1) : gdbremote::fromHex(args.substr(colon + 1));
    if (!bytes || bytes->size() != length)
        return "E01";
    if (!m_replies.codeWritable && m_target.inCode(address, length))
        return "E14"; // qemu-arc: the guest's code pages are not written
    return m_target.writeMemory(address, *bytes) ? "OK" : "E01";
}

std::string RspServer::breakpoint(const std::string& data)
{
    if (data.size() < 3 || data[1] != '0')
        return ""; // only software breakpoints
    uint32_t address = 0;
    size_t kind = 0;
    if (!addressLength(data.substr(3), address, kind))
        return "E01";
    if (data[0] == 'Z')
        m_target.machine().breakpoints().insert(address);
    else
        m_target.machine().breakpoints().erase(address);
    return "OK";
}

std::string RspServer::features(const std::string& args)
{
    const size_t colon = args.find(':');
    const std::string annex = args.substr(0, colon);
    for (const auto& [name, text] : m_layout.documents) {
        if (name == annex && colon != std::string::npos)
            return slice(text, args.substr(colon + 1));
    }
    return "E00";
}

std::string RspServer::auxv(const std::string& args)
{
    // AT_ENTRY and AT_NULL, 32-bit words: where the program was entered, for a load-bias check.
    std::string words;
    for (uint32_t word : { 9u, uint32_t(m_target.image().entry), 0u, 0u })
        words += *gdbremote::fromHex(hex32(word));
    const size_t colon = args.find(':');
    return colon == std::string::npos ? "E00" : slice(words, args.substr(colon + 1));
}

std::string RspServer::threads(const std::string& data) const
{
    if (data == "qsThreadInfo")
        return "l";
    if (data == "qfThreadInfo")
        return m_options.personality == Personality::OpenOcd ? "l" : "m" + thread();
    if (data == "qC")
        return m_replies.multiprocess ? "QC" + thread() : "";
    return data == "qAttached" ? "1" : "";
}

} // namespace ppe::arc::sim
