// `ppe-arc poke` and `ppe-arc restore` (control_commands.cc), and what the counter commands
// (counter_commands.cc) share with them: a stopped target with an undo journal.
#pragma once

#include "ppe/gdbremote/target_access.h"

#include <atomic>
#include <memory>
#include <string>
#include <sys/types.h>

// A stopped target, its description and an undo journal (created at the first change): every
// change goes through `access`; `close` undoes them all, detaches and keeps the transcript.
struct Attachment {
    Attachment(ppe::gdbremote::Session session, ppe::gdbremote::TargetDescription description,
        const std::string& journalPath, const std::string& remote);
    ppe::gdbremote::Session session;
    ppe::gdbremote::TargetDescription description;
    ppe::gdbremote::TargetControl control;
    ppe::gdbremote::UndoJournal journal;
    ppe::gdbremote::TargetAccess access;
};

// Attaches to the server at `remote` (--journal `journal`, or the default name); `transcript`:
// record every frame for --transcript; `server`: a server ppe-arc started, waited for while it
// starts (-1: none, a refused connection is an error at once).
ppe::Result<std::unique_ptr<Attachment>> attach(
    const std::string& remote, const std::string& journal, bool transcript, pid_t server = -1);
// Undoes every change, detaches and writes the transcript (when `transcript` names a file); the
// exit status, 0 when `status` was 0 and all of it went well.
int closeAttachment(Attachment& a, const std::string& transcript, const char* command, int status);

// argv[1] is "poke" or "restore"; `stop` is set by SIGINT, SIGTERM and SIGHUP. The exit status.
int controlMain(int argc, char** argv, const std::atomic<bool>& stop);
// The one-line error on standard error; 1.
int controlFail(const std::string& message);
