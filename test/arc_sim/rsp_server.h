// The simulated ARC target's GDB remote protocol server (a STAND-IN for OpenOCD, qemu-arc or
// gdbserver on ARC: README.md): listens on 127.0.0.1, serves one connection, answers as the chosen
// personality (personality.h) does, and runs the machine (machine.h) between `c`/`s` and the next
// stop: a breakpoint (T05), 0x03 or an outside interrupt (T02), the end (W00; a stop where the
// personality is a bare-metal probe). The machine runs in slices of `sliceSteps` instructions,
// `slicePause` apart, so that a run lasts long enough to be interrupted and read while it runs.
#pragma once

#include "personality.h"
#include "sim_target.h"

#include "ppe/gdbremote/packet.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>

namespace ppe::arc::sim {

struct ServerOptions {
    Personality personality = Personality::OpenOcd;
    bool pctFeature = true; // openocd: the PCT registers in the description
    uint64_t sliceSteps = 2000;
    std::chrono::microseconds slicePause { 200 };
};

struct ServerStats {
    uint64_t packets = 0, stops = 0, readsWhileRunning = 0, retransmits = 0;
};

class RspServer {
public:
    RspServer(SimTarget& target, ServerOptions options);
    ~RspServer();
    RspServer(const RspServer&) = delete;
    RspServer& operator=(const RspServer&) = delete;

    // Listens on 127.0.0.1 at `port` (0: a free one); the port.
    Result<uint16_t> listen(uint16_t port = 0);
    // Accepts one connection and serves it until `D`, `k` or its end; called again, the next one,
    // the machine and the PCT as the last left them, halted.
    gdbremote::Status serve();
    // What SIGINT to the server does (qemu's stubs stop the guest on it): async-signal-safe.
    void interruptFromOutside() { m_outside.store(true); }
    const ServerStats& stats() const { return m_stats; }
    const Layout& layout() const { return m_layout; }

private:
    // The connection.
    bool pump(int timeoutMs); // reads what came within the timeout and handles it; false at its end
    void send(const std::string& payload);
    void sendRaw(const std::string& raw);
    void handle(const gdbremote::Event& event);
    void runSlice();
    void stopped(int signal);
    void ended();

    // Packets (rsp_packets.cc).
    void packet(const std::string& data);
    void whileRunning(const std::string& data);
    std::string stopReply(int signal) const;
    std::string readRegisters();
    std::string writeRegisters(const std::string& hex);
    std::string readRegister(const std::string& args);
    std::string writeRegister(const std::string& args);
    std::string readMemory(const std::string& args);
    std::string writeMemory(const std::string& args, bool binary);
    std::string breakpoint(const std::string& data);
    std::string features(const std::string& args);
    std::string auxv(const std::string& args);
    std::string monitor(const std::string& hexCommand);
    std::string monitorCommand(const std::string& command);
    std::string vCont(const std::string& data);
    std::string threads(const std::string& data) const;
    std::string thread() const; // the one thread's id
    void resume(bool step);
    const SimRegister* registerNumbered(unsigned regnum) const;

    SimTarget& m_target;
    ServerOptions m_options;
    Layout m_layout;
    Replies m_replies;
    int m_listen = -1, m_fd = -1;
    gdbremote::PacketDecoder m_decoder;
    bool m_ackMode = true, m_awaitingAck = false, m_running = false, m_overFirst = false, m_done = false;
    bool m_exited = false;
    int m_lastSignal = 5;
    std::string m_lastSent;
    std::atomic<bool> m_outside { false };
    ServerStats m_stats;
};

} // namespace ppe::arc::sim
