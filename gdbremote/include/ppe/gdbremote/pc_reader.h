// Reading the PC of a stopped target by whichever means the server has, probed, never assumed:
// `p N` (QEMU, after the description was read), else `g` at the register's offset, else the PC
// expedited in the stop reply.
#pragma once

#include "ppe/gdbremote/session.h"

#include <cstdint>
#include <string>

namespace ppe::gdbremote {

enum class PcStrategy { None, RegisterPacket, AllRegisters, StopReply };
const char* pcStrategyName(PcStrategy strategy);

// What the probe found, for the report and the .ppe.
struct PcProbe {
    PcStrategy strategy = PcStrategy::None;
    bool registerPacket = false; // `p N` answered with the register's bytes
    std::string registerPacketNote; // why not ("empty reply: unsupported", "E01", ...)
    bool allRegisters = false; // `g` answered and covered the PC
    std::size_t allRegistersBytes = 0; // bytes in the `g` reply
    std::string allRegistersNote;
    bool expedited = false; // the last stop reply carried the PC
    std::string str() const; // one line per means
};

class PcReader {
public:
    PcReader(Session& session, RegisterInfo pc, bool bigEndian = false);

    // Tries every means once, the target stopped; chooses the first that worked.
    Result<PcProbe> probe();
    // The PC by the chosen means (the target stopped; after a stop for StopReply).
    Result<std::uint64_t> read();
    // Whether the PC of a thread other than the one that stopped can be read (`p` or `g`).
    bool readsAnyThread() const { return m_probe.registerPacket || m_probe.allRegisters; }
    // `thread`'s PC (stopped): `Hg` then `p` or `g`.
    Result<std::uint64_t> readThread(const std::string& thread);
    // The PC while the target runs, by `p` (Session::readRegisterRunning).
    Result<std::uint64_t> readRunning();
    // The PC of the thread `stop` reports: expedited in it, else as readThread.
    Result<std::uint64_t> readStopped(const StopReply& stop);
    const RegisterInfo& pcRegister() const { return m_pc; }
    const PcProbe& lastProbe() const { return m_probe; }

private:
    Result<std::uint64_t> value(std::string_view hex, const char* what) const;
    Result<std::uint64_t> viaRegisterPacket();
    Result<std::uint64_t> viaAllRegisters(std::size_t* replyBytes = nullptr);
    Result<std::uint64_t> viaStopReply();

    Session& m_session;
    RegisterInfo m_pc;
    bool m_bigEndian;
    PcProbe m_probe;
};

} // namespace ppe::gdbremote
