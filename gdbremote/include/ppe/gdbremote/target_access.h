// Typed access to a stopped target over the target control's requests: registers by name (`p`,
// `P`), memory (`m`; `X` or `M`, chunked to the server's PacketSize, `X` with its escapes),
// software breakpoints (`Z0`/`z0`) and monitor commands (`qRcmd`, its `O` output collected until
// `OK`). Each packet kind is probed at its first use and what the server did is recorded
// (`Capabilities`): an empty reply is "not supported", an `E NN` reply an error naming what was
// asked (a register by name, an address). Every change goes first into the undo journal
// (`undo_journal.h`), so that it can be undone on every exit path, or by `ppe-arc restore` after
// a crash or a lost connection.
#pragma once

#include "ppe/gdbremote/target_control.h"
#include "ppe/gdbremote/target_description.h"
#include "ppe/gdbremote/undo_journal.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace ppe::gdbremote {

// What the server did at the first use of each packet: nullopt not tried, false not supported
// (an empty reply), true supported.
struct Capabilities {
    std::optional<bool> readRegister, writeRegister, readMemory, writeMemoryX, writeMemoryM, breakpoint, monitor;
    std::string report() const;
};

class TargetAccess {
public:
    // `journal` may be null: then changes are refused (nothing is changed that cannot be undone).
    TargetAccess(TargetControl& control, const TargetDescription& description, bool bigEndian, UndoJournal* journal);

    const Capabilities& capabilities() const { return m_caps; }
    const RegisterInfo* registerNamed(const std::string& name) const;

    // A register's bytes as the target holds them (target byte order), and as a number.
    Result<std::string> readRegisterBytes(const std::string& name);
    Result<std::string> readRegisterBytes(const RegisterInfo& reg);
    Result<uint64_t> readRegister(const std::string& name);
    Status writeRegister(const std::string& name, uint64_t value);
    Status writeRegisterBytes(const RegisterInfo& reg, const std::string& bytes); // no journal entry

    Result<std::string> readMemory(uint64_t address, size_t length);
    Status writeMemory(uint64_t address, const std::string& bytes);
    // No journal entry; `written` gets the bytes written before a failure.
    Status writeMemoryRaw(uint64_t address, const std::string& bytes, size_t* written = nullptr);

    // Software breakpoint of `kind` (the instruction's size on most targets) at `address`.
    Status insertBreakpoint(uint64_t address, unsigned kind);
    Status removeBreakpoint(uint64_t address, unsigned kind);
    // Puts back a breakpoint the journal already holds (removed for a moment to step over it):
    // nothing new is journalled.
    Status reinsertBreakpoint(uint64_t address, unsigned kind);

    // A monitor command's output (qRcmd); an error where the server has none.
    Result<std::string> monitor(const std::string& command);
    // A monitor command that changes the target, `undo` the one that puts it back (journalled
    // first, like every change). Its output is not looked at: servers print nothing or a note.
    Status monitorChange(const std::string& command, const std::string& undo);
    // A change the tool makes by its own means (ppe-arc's lr/sr stub, aux_registers.h), `undo` the
    // text its undo handler takes to put it back (journalled first, like every change).
    Status toolChange(const std::string& undo, const std::function<Status()>& change);
    // The handler of the journal's tool entries (undoAll, `ppe-arc restore`); without one such an
    // entry is an error that keeps the journal.
    void setToolUndo(std::function<Status(const std::string&)> handler) { m_toolUndo = std::move(handler); }

    // Undoes every change of the journal, newest first, and empties it; the first failure ends it.
    Status undoAll();

private:
    Result<std::string> allRegisters(const std::string& what);
    Result<std::string> ask(const std::string& packet, std::optional<bool>& capability, const std::string& what);
    size_t chunk() const; // payload bytes of a memory packet within PacketSize
    Status writeChunkX(uint64_t address, std::string_view bytes);
    Status writeChunkM(uint64_t address, std::string_view bytes);
    Status apply(const UndoEntry& entry);

    TargetControl& m_control;
    const TargetDescription& m_description;
    bool m_bigEndian;
    UndoJournal* m_journal;
    Capabilities m_caps;
    std::function<Status(const std::string&)> m_toolUndo;
};

} // namespace ppe::gdbremote
