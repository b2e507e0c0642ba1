// Which packet goes where, for the simulated target's server (rsp_server.h), and the monitor
// commands of the openocd personality.
#include "rsp_server.h"

#include "ppe/gdbremote/hex.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace ppe::arc::sim {

namespace {
    bool startsWith(const std::string& s, std::string_view prefix) { return s.compare(0, prefix.size(), prefix) == 0; }

    // gdbserver 13's `monitor help`, shortened.
    const char kGdbserverHelp[] = "The following monitor commands are supported:\n  set debug <0|1>\n"
                                  "    Enable general debugging messages\n  exit\n    Quit GDBserver\n";
} // namespace

void RspServer::packet(const std::string& data)
{
    std::lock_guard<std::mutex> lock(m_target.mutex());
    if (data == "c" || startsWith(data, "C") || data == "s" || startsWith(data, "S")) {
        resume(data[0] == 's' || data[0] == 'S');
        return;
    }
    if (startsWith(data, "vCont")) {
        if (const std::string reply = vCont(data); !reply.empty() || m_replies.vCont.empty() || data == "vCont?")
            send(reply);
        return;
    }
    if (data == "k") {
        m_done = true;
        return;
    }
    std::string reply;
    if (startsWith(data, "qSupported"))
        reply = m_replies.supported;
    else if (data == "QStartNoAckMode" && m_replies.noAck) {
        send("OK");
        m_ackMode = false;
        return;
    } else if (data == "?")
        reply = m_options.personality == Personality::OpenOcd && m_stats.stops == 0 ? "S05" : stopReply(m_lastSignal);
    else if (data == "g")
        reply = readRegisters();
    else if (startsWith(data, "G"))
        reply = writeRegisters(data.substr(1));
    else if (startsWith(data, "p"))
        reply = m_replies.registerPackets ? readRegister(data.substr(1)) : "";
    else if (startsWith(data, "P"))
        reply = m_replies.registerPackets ? writeRegister(data.substr(1)) : "";
    else if (startsWith(data, "m"))
        reply = readMemory(data.substr(1));
    else if (startsWith(data, "M"))
        reply = writeMemory(data.substr(1), false);
    else if (startsWith(data, "X"))
        reply = m_replies.binaryWrite ? writeMemory(data.substr(1), true) : "";
    else if (startsWith(data, "Z") || startsWith(data, "z"))
        reply = breakpoint(data);
    else if (startsWith(data, "qXfer:features:read:"))
        reply = features(data.substr(20));
    else if (startsWith(data, "qXfer:auxv:read:") && m_options.personality != Personality::OpenOcd)
        reply = auxv(data.substr(16));
    else if (startsWith(data, "qRcmd,"))
        reply = m_replies.monitor ? monitor(data.substr(6)) : "";
    else if (startsWith(data, "H"))
        reply = "OK";
    else if (data == "D" || startsWith(data, "D;")) {
        send("OK");
        m_done = true;
        return;
    } else
        reply = threads(data);
    send(reply);
}

void RspServer::whileRunning(const std::string& data)
{
    // OpenOCD reads registers and memory over JTAG while the core runs; gdbserver in all-stop mode
    // drops what comes while the program runs.
    if (m_options.personality != Personality::OpenOcd)
        return;
    std::lock_guard<std::mutex> lock(m_target.mutex());
    if (startsWith(data, "p")) {
        ++m_stats.readsWhileRunning;
        send(readRegister(data.substr(1)));
    } else if (startsWith(data, "m")) {
        ++m_stats.readsWhileRunning;
        send(readMemory(data.substr(1)));
    }
}

std::string RspServer::vCont(const std::string& data)
{
    if (m_replies.vCont.empty())
        return "";
    if (data == "vCont?")
        return m_replies.vCont;
    const char action = data.size() > 6 ? data[6] : ' ';
    if (action == 'c' || action == 'C' || action == 's' || action == 'S' || action == 'r') {
        resume(action == 's' || action == 'S');
        return "";
    }
    return action == 't' ? "OK" : "E01";
}

void RspServer::resume(bool step)
{
    if (m_exited) {
        send(stopReply(0));
        return;
    }
    if (!step) {
        m_running = true;
        m_overFirst = true;
        return;
    }
    const Machine::Event event = m_target.machine().step(true);
    if (event == Machine::Event::Ended)
        ended();
    else
        stopped(5);
}

std::string RspServer::monitor(const std::string& hexCommand)
{
    const std::optional<std::string> command = gdbremote::fromHex(hexCommand);
    if (!command)
        return "E01";
    const std::string output = monitorCommand(*command);
    for (size_t at = 0; at < output.size(); at += 200)
        send("O" + gdbremote::toHex(output.substr(at, 200)));
    return "OK";
}

std::string RspServer::monitorCommand(const std::string& command)
{
    if (m_options.personality == Personality::Gdbserver)
        return command == "help" ? kGdbserverHelp : "Unknown monitor command.\n\n";
    std::istringstream in(command);
    std::string arc, jtag, verb, address, value;
    if (!(in >> arc >> jtag >> verb >> address) || arc != "arc" || jtag != "jtag")
        return "invalid command name \"" + command.substr(0, command.find(' ')) + "\"\n";
    const uint32_t aux = uint32_t(std::strtoul(address.c_str(), nullptr, 0));
    if (verb == "get-aux-reg") {
        Result<uint32_t> read = aux == 6 ? Result<uint32_t>(m_target.machine().pc()) : m_target.pct().read(aux);
        char text[16];
        std::snprintf(text, sizeof(text), "0x%x\n", read ? *read : 0);
        return read ? text : "Error: " + read.error().message + "\n";
    }
    if (verb == "set-aux-reg" && in >> value) {
        const gdbremote::Status written = m_target.pct().write(aux, uint32_t(std::strtoul(value.c_str(), nullptr, 0)));
        return written ? "" : "Error: " + written.error().message + "\n";
    }
    return "Usage: arc jtag get-aux-reg <regnum> | set-aux-reg <regnum> <value>\n";
}

} // namespace ppe::arc::sim
