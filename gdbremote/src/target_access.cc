#include "ppe/gdbremote/target_access.h"

#include "ppe/gdbremote/hex.h"

#include <algorithm>

namespace ppe::gdbremote {

namespace {

    std::string said(const std::optional<bool>& c) { return !c ? "not tried" : *c ? "yes" : "no (empty reply)"; }

    bool isError(const std::string& reply) { return reply.size() == 3 && reply[0] == 'E' && isHex(reply.substr(1)); }

    std::string address(uint64_t a) { return "0x" + hexNumber(a); }

    // The packet's name for messages: qRcmd, Z0, z0, or its letter.
    std::string packetName(const std::string& packet)
    {
        if (packet.rfind("qRcmd", 0) == 0)
            return "qRcmd";
        return packet.substr(0, packet[0] == 'Z' || packet[0] == 'z' ? 2 : 1);
    }

} // namespace

std::string Capabilities::report() const
{
    return "p " + said(readRegister) + ", P " + said(writeRegister) + ", m " + said(readMemory) + ", X "
        + said(writeMemoryX) + ", M " + said(writeMemoryM) + ", Z0 " + said(breakpoint) + ", qRcmd " + said(monitor);
}

TargetAccess::TargetAccess(
    TargetControl& control, const TargetDescription& description, bool bigEndian, UndoJournal* journal)
    : m_control(control)
    , m_description(description)
    , m_bigEndian(bigEndian)
    , m_journal(journal)
{
}

const RegisterInfo* TargetAccess::registerNamed(const std::string& name) const
{
    for (const RegisterInfo& r : m_description.registers)
        if (r.name == name)
            return &r;
    return nullptr;
}

// Sends `packet`; records at the first use whether the server supports it; an empty reply (not
// supported) and `E NN` are errors naming `what`.
Result<std::string> TargetAccess::ask(
    const std::string& packet, std::optional<bool>& capability, const std::string& what)
{
    auto reply = m_control.request(packet);
    if (!reply)
        return reply.error();
    if (!capability)
        capability = !reply->empty();
    if (reply->empty())
        return Error { m_control.session().peer(), 0,
            "cannot " + what + ": the server does not support '" + packetName(packet) + "' (empty reply)" };
    if (isError(*reply))
        return Error { m_control.session().peer(), 0, "cannot " + what + ": " + *reply };
    return reply;
}

Result<std::string> TargetAccess::readRegisterBytes(const std::string& name)
{
    const RegisterInfo* reg = registerNamed(name);
    if (!reg)
        return Error { m_control.session().peer(), 0, "no register named " + name + " in the target description" };
    return readRegisterBytes(*reg);
}

// All registers (`g`), the fallback of a server without `p`/`P` (gdbserver on x86-64).
Result<std::string> TargetAccess::allRegisters(const std::string& what)
{
    auto reply = m_control.request("g");
    if (!reply)
        return reply.error();
    auto bytes = fromHex(*reply);
    if (!bytes)
        return Error { m_control.session().peer(), 0, what + ": 'g' reply '" + reply->substr(0, 40) + "'" };
    return *bytes;
}

Result<std::string> TargetAccess::readRegisterBytes(const RegisterInfo& reg)
{
    const std::string what = "read register " + reg.name + " (regnum " + std::to_string(reg.regnum) + ")";
    if (m_caps.readRegister == false) {
        auto all = allRegisters(what);
        if (!all)
            return all.error();
        if (all->size() < reg.offset + reg.bytes())
            return Error { m_control.session().peer(), 0, what + ": beyond the 'g' reply (no 'p' either)" };
        return all->substr(reg.offset, reg.bytes());
    }
    auto reply = m_control.request("p" + hexNumber(reg.regnum));
    if (!reply)
        return reply.error();
    if (!m_caps.readRegister)
        m_caps.readRegister = !reply->empty();
    if (reply->empty())
        return readRegisterBytes(reg);
    if (isError(*reply))
        return Error { m_control.session().peer(), 0, "cannot " + what + ": " + *reply };
    auto bytes = fromHex(*reply);
    if (!bytes || bytes->size() != reg.bytes())
        return Error { m_control.session().peer(), 0, what + ": reply '" + reply->substr(0, 40) + "'" };
    return *bytes;
}

Result<uint64_t> TargetAccess::readRegister(const std::string& name)
{
    auto bytes = readRegisterBytes(name);
    if (!bytes)
        return bytes.error();
    return registerValue(*bytes, m_bigEndian).value_or(0);
}

Status TargetAccess::writeRegisterBytes(const RegisterInfo& reg, const std::string& bytes)
{
    const std::string what = "write register " + reg.name + " (regnum " + std::to_string(reg.regnum) + ")";
    Result<std::string> reply = std::string();
    if (m_caps.writeRegister != false) {
        reply = m_control.request("P" + hexNumber(reg.regnum) + "=" + toHex(bytes));
        if (reply && !m_caps.writeRegister)
            m_caps.writeRegister = !reply->empty();
    }
    if (reply && reply->empty()) { // no `P`: `g`, the register's bytes replaced, `G`
        auto all = allRegisters(what);
        if (!all)
            return all.error();
        if (all->size() < reg.offset + bytes.size())
            return Error { m_control.session().peer(), 0, what + ": beyond the 'g' reply (no 'P' either)" };
        all->replace(reg.offset, bytes.size(), bytes);
        reply = m_control.request("G" + toHex(*all));
    }
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { m_control.session().peer(), 0, what + ": reply '" + reply->substr(0, 40) + "'" };
    return std::monostate {};
}

Status TargetAccess::writeRegister(const std::string& name, uint64_t value)
{
    if (!m_journal)
        return Error { m_control.session().peer(), 0, "no undo journal: register " + name + " not written" };
    auto old = readRegisterBytes(name);
    if (!old)
        return old.error();
    const RegisterInfo& reg = *registerNamed(name);
    if (auto kept = m_journal->add({ UndoEntry::Kind::Register, name, reg.regnum, *old, 0, reg.offset }); !kept)
        return kept.error();
    auto done = writeRegisterBytes(reg, registerBytes(value, reg.bytes(), m_bigEndian));
    if (!done)
        m_journal->dropLast(); // refused: the register holds its old value
    return done;
}

size_t TargetAccess::chunk() const
{
    const size_t size = m_control.session().features().packetSize;
    return std::clamp<size_t>(size > 64 ? (size - 32) / 2 : 0x200, 16, 0x4000);
}

Result<std::string> TargetAccess::readMemory(uint64_t at, size_t length)
{
    std::string out;
    while (out.size() < length) {
        const size_t n = std::min(chunk(), length - out.size());
        const uint64_t where = at + out.size();
        auto reply = ask("m" + hexNumber(where) + "," + hexNumber(n), m_caps.readMemory,
            "read " + std::to_string(n) + " bytes of memory at " + address(where));
        if (!reply)
            return reply.error();
        auto bytes = fromHex(*reply);
        if (!bytes || bytes->empty() || bytes->size() > n)
            return Error { m_control.session().peer(), 0,
                "cannot read memory at " + address(where) + ": reply '" + reply->substr(0, 40) + "'" };
        out += *bytes;
    }
    return out;
}

Status TargetAccess::writeChunkX(uint64_t at, std::string_view bytes)
{
    const std::string packet = "X" + hexNumber(at) + "," + hexNumber(bytes.size()) + ":" + std::string(bytes);
    auto reply = ask(packet, m_caps.writeMemoryX, "write memory at " + address(at));
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { m_control.session().peer(), 0, "cannot write memory at " + address(at) + ": '" + *reply + "'" };
    return std::monostate {};
}

Status TargetAccess::writeChunkM(uint64_t at, std::string_view bytes)
{
    const std::string packet = "M" + hexNumber(at) + "," + hexNumber(bytes.size()) + ":" + toHex(bytes);
    auto reply = ask(packet, m_caps.writeMemoryM, "write memory at " + address(at));
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { m_control.session().peer(), 0, "cannot write memory at " + address(at) + ": '" + *reply + "'" };
    return std::monostate {};
}

// `X` (binary, escaped by the framing) where the server supports it, else `M` (hex); the first
// `X` is the probe: an empty reply means `M` from then on (qemu-arc answers `X` with nothing).
Status TargetAccess::writeMemoryRaw(uint64_t at, const std::string& bytes, size_t* written)
{
    size_t none = 0;
    size_t& done = written ? *written : none;
    for (done = 0; done < bytes.size();) {
        const std::string_view piece = std::string_view(bytes).substr(done, chunk());
        Status written = std::monostate {};
        if (m_caps.writeMemoryX.value_or(true)) {
            written = writeChunkX(at + done, piece);
            if (!written && m_caps.writeMemoryX == false)
                written = writeChunkM(at + done, piece);
        } else {
            written = writeChunkM(at + done, piece);
        }
        if (!written)
            return written;
        done += piece.size();
    }
    return std::monostate {};
}

Status TargetAccess::writeMemory(uint64_t at, const std::string& bytes)
{
    if (!m_journal)
        return Error { m_control.session().peer(), 0, "no undo journal: memory at " + address(at) + " not written" };
    auto old = readMemory(at, bytes.size());
    if (!old)
        return old.error();
    if (auto kept = m_journal->add({ UndoEntry::Kind::Memory, {}, at, *old, 0 }); !kept)
        return kept.error();
    size_t written = 0;
    auto done = writeMemoryRaw(at, bytes, &written);
    if (!done && written == 0)
        m_journal->dropLast(); // refused (E14 for code under QEMU): nothing to undo
    return done;
}

Status TargetAccess::insertBreakpoint(uint64_t at, unsigned kind)
{
    if (!m_journal)
        return Error { m_control.session().peer(), 0, "no undo journal: no breakpoint at " + address(at) };
    if (auto kept = m_journal->add({ UndoEntry::Kind::Breakpoint, {}, at, {}, kind }); !kept)
        return kept.error();
    const std::string what = "insert a breakpoint at " + address(at);
    auto reply = ask("Z0," + hexNumber(at) + "," + std::to_string(kind), m_caps.breakpoint, what);
    if (!reply || *reply != "OK")
        m_journal->dropLast(); // not inserted
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { m_control.session().peer(), 0, "cannot " + what + ": '" + *reply + "'" };
    return std::monostate {};
}

Status TargetAccess::reinsertBreakpoint(uint64_t at, unsigned kind)
{
    const std::string what = "insert the breakpoint at " + address(at) + " again";
    auto reply = ask("Z0," + hexNumber(at) + "," + std::to_string(kind), m_caps.breakpoint, what);
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { m_control.session().peer(), 0, "cannot " + what + ": '" + *reply + "'" };
    return std::monostate {};
}

Status TargetAccess::removeBreakpoint(uint64_t at, unsigned kind)
{
    const std::string what = "remove the breakpoint at " + address(at);
    auto reply = ask("z0," + hexNumber(at) + "," + std::to_string(kind), m_caps.breakpoint, what);
    if (!reply)
        return reply.error();
    if (*reply != "OK")
        return Error { m_control.session().peer(), 0, "cannot " + what + ": '" + *reply + "'" };
    return std::monostate {};
}

Result<std::string> TargetAccess::monitor(const std::string& command)
{
    auto reply = ask("qRcmd," + toHex(command), m_caps.monitor, "run the monitor command '" + command + "'");
    std::string output;
    for (int i = 0; reply && *reply != "OK" && i < 10000; ++i) {
        auto text
            = reply->size() > 1 && (*reply)[0] == 'O' ? fromHex(std::string_view(*reply).substr(1)) : std::nullopt;
        if (!text) // a reply of its own (hex text without O), as some servers send
            return fromHex(*reply).value_or(*reply);
        output += *text;
        reply = m_control.session().nextReply();
    }
    if (!reply)
        return reply.error();
    return output;
}

Status TargetAccess::monitorChange(const std::string& command, const std::string& undo)
{
    if (!m_journal)
        return Error { m_control.session().peer(), 0, "no undo journal: '" + command + "' not run" };
    if (auto kept = m_journal->add({ UndoEntry::Kind::Monitor, undo, 0, {}, 0 }); !kept)
        return kept.error();
    auto done = monitor(command);
    if (!done)
        m_journal->dropLast(); // refused: nothing changed
    return done ? Status(std::monostate {}) : Status(done.error());
}

Status TargetAccess::toolChange(const std::string& undo, const std::function<Status()>& change)
{
    if (!m_journal)
        return Error { m_control.session().peer(), 0, "no undo journal: no change by '" + undo + "'" };
    if (auto kept = m_journal->add({ UndoEntry::Kind::Tool, undo, 0, {}, 0 }); !kept)
        return kept.error();
    Status done = change();
    if (!done)
        m_journal->dropLast(); // refused: nothing changed
    return done;
}

// Undoes one change; a breakpoint the server no longer knows is gone already.
Status TargetAccess::apply(const UndoEntry& e)
{
    switch (e.kind) {
    case UndoEntry::Kind::Register: {
        RegisterInfo reg;
        reg.name = e.name;
        reg.regnum = unsigned(e.number);
        reg.bitsize = unsigned(e.bytes.size() * 8);
        reg.offset = e.offset;
        return writeRegisterBytes(reg, e.bytes);
    }
    case UndoEntry::Kind::Memory:
        return writeMemoryRaw(e.number, e.bytes);
    case UndoEntry::Kind::Monitor: {
        auto done = monitor(e.name);
        return done ? Status(std::monostate {}) : Status(done.error());
    }
    case UndoEntry::Kind::Tool:
        if (!m_toolUndo)
            return Error { m_journal ? m_journal->path() : "", 0,
                "a change only ppe-arc's own code can undo ('" + e.name + "'): not here" };
        return m_toolUndo(e.name);
    case UndoEntry::Kind::Breakpoint: { // any reply will do: an E NN says it is gone already
        auto reply = m_control.request("z0," + hexNumber(e.number) + "," + std::to_string(e.breakpointKind));
        return reply ? Status(std::monostate {}) : Status(reply.error());
    }
    }
    return std::monostate {};
}

Status TargetAccess::undoAll()
{
    while (m_journal && !m_journal->empty()) {
        if (auto undone = apply(m_journal->entries().back()); !undone)
            return undone;
        m_journal->dropLast();
    }
    return std::monostate {};
}

} // namespace ppe::gdbremote
