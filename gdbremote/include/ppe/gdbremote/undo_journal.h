// The undo journal of the changes ppe-arc makes to a target: a text file, one change a line,
// written and flushed to disk BEFORE the change is sent (a crash between the two leaves an entry
// whose undo is harmless: it writes back what was there). `TargetAccess::undoAll` applies it newest
// first on every exit path; `ppe-arc restore` applies a journal left behind by a crash or a lost
// connection. Format (docs/user-guide.md, "ppe-arc restore"):
//
//     ppe-arc undo journal 1
//     remote 127.0.0.1:2345
//     register pc 36 144 a0030100      regnum, offset in `g`, the old bytes as the target sent them
//     memory 11a40 7f454c46            the old bytes at an address
//     breakpoint 10b3c 2               a software breakpoint (Z0) and its kind
//     monitor 6172632e2e2e             the monitor command (qRcmd, hex) that undoes a change made
//                                      by one (OpenOCD's `arc jtag set-aux-reg N OLD`)
//     tool 6175782d...                 a change the tool undoes by its own means (hex): ppe-arc's
//                                      `aux-stub AREA ADDRESS OLD` (an aux register written by
//                                      the lr/sr stub, aux_registers.h)
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace ppe::gdbremote {

struct UndoEntry {
    enum class Kind { Register, Memory, Breakpoint, Monitor, Tool } kind;
    std::string name; // Register: its name; Monitor: the command that undoes the change; Tool: its text
    uint64_t number = 0; // Register: regnum; Memory and Breakpoint: the address
    std::string bytes; // Register and Memory: the old bytes (raw)
    unsigned breakpointKind = 0;
    std::size_t offset = 0; // Register: its bytes' offset in the `g` reply (for a server without `P`)
};

class UndoJournal {
public:
    // A new journal at `path` for the target at `remote`; nothing is written until the first change.
    UndoJournal(std::string path, std::string remote);
    // Reads a journal left at `path`; errors name the file and line.
    static Result<UndoJournal> load(const std::string& path);
    // A journal's text; `path` names it in errors.
    static Result<UndoJournal> parse(std::string_view text, const std::string& path);

    Result<std::monostate> add(const UndoEntry& entry); // appended and flushed to disk
    const std::vector<UndoEntry>& entries() const { return m_entries; }
    void dropLast(); // the newest entry was undone: rewrites the file, removes it when empty
    const std::string& path() const { return m_path; }
    const std::string& remote() const { return m_remote; }
    bool empty() const { return m_entries.empty(); }

private:
    Result<std::monostate> rewrite();

    std::string m_path, m_remote;
    std::vector<UndoEntry> m_entries;
};

} // namespace ppe::gdbremote
