// A program under the real qemu-arc, driven through ppe-arc's library rather than its command line
// (arc_aux_stub_test.cc, arc_inject_test.cc): the server on a free port, the session negotiated and
// its first stop read, the target description, control, an undo journal and access, as ppe-arc's
// own attach makes them (the lr/sr stub's undo included), stopped by a SIGINT to qemu-arc, as
// ppe-arc stops a server it started.
#pragma once

#include "local_server.h"
#include "run_program.h"

#include "ppe/arc/aux_registers.h"
#include "ppe/arc/spawned_server.h"
#include "ppe/gdbremote/session_start.h"

#include <csignal>
#include <memory>
#include <optional>
#include <string>
#include <vector>

struct QemuArcSession {
    ppe::testing::Running server;
    std::optional<ppe::gdbremote::Session> session;
    ppe::gdbremote::TargetDescription description;
    std::optional<ppe::gdbremote::TargetControl> control;
    std::optional<ppe::gdbremote::UndoJournal> journal;
    std::optional<ppe::gdbremote::TargetAccess> access;
    std::string error; // why it is not ready ("" when it is)

    bool finished = false;

    // Detaches, closes the connection (qemu-arc runs the program on once its client has gone) and
    // waits for the program.
    ppe::testing::RunResult finish()
    {
        if (control)
            (void)control->detach();
        access.reset();
        control.reset();
        session.reset();
        finished = true;
        return ppe::testing::waitProgram(server);
    }

    // A test that stopped before finish() (a failed assertion) leaves no qemu-arc behind.
    ~QemuArcSession()
    {
        if (finished || server.pid <= 0)
            return;
        ::kill(server.pid, SIGKILL);
        ppe::testing::waitProgram(server);
    }
};

// `program` (its path and arguments) under qemu-arc without a debugger: the output to compare with.
inline ppe::testing::RunResult aloneUnderQemu(const std::vector<std::string>& program)
{
    std::vector<std::string> bare = { PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu" };
    bare.insert(bare.end(), program.begin(), program.end());
    return ppe::testing::runProgram(bare);
}

// `program` (its path and arguments) under qemu-arc with its stub on a free port, the undo journal
// at `journal`.
inline std::unique_ptr<QemuArcSession> startQemuArc(const std::vector<std::string>& program, const std::string& journal)
{
    auto s = std::make_unique<QemuArcSession>();
    const std::string port = std::to_string(ppe::testing::freePort()), remote = "127.0.0.1:" + port;
    std::vector<std::string> args = { PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", "-g", port };
    args.insert(args.end(), program.begin(), program.end());
    s->server = ppe::testing::startProgram(args);
    ppe::Result<ppe::gdbremote::Session> session
        = ppe::arc::connectToServer(remote, s->server.pid, std::chrono::seconds(10));
    if (!session) {
        s->error = session.error().str();
        return s;
    }
    s->session.emplace(std::move(*session));
    if (auto first = ppe::gdbremote::startSession(*s->session, true); !first) {
        s->error = first.error().str();
        return s;
    }
    ppe::Result<ppe::gdbremote::TargetDescription> description = s->session->readTargetDescription();
    if (!description) {
        s->error = description.error().str();
        return s;
    }
    s->description = std::move(*description);
    ppe::gdbremote::ControlOptions options; // qemu-arc ignores 0x03 while the program runs: SIGINT stops it
    options.fallbackInterrupt = [pid = s->server.pid]() -> ppe::gdbremote::Status {
        ::kill(pid, SIGINT);
        return std::monostate {};
    };
    s->control.emplace(*s->session, options);

    s->journal.emplace(journal, remote);
    s->access.emplace(*s->control, s->description, false, &*s->journal);
    ppe::arc::undoAuxStubWrites(*s->control, *s->access);
    return s;
}
