// A debug server ppe-arc starts itself (`--spawn 'CMD ...'`): run through the shell with `exec`, so
// that the child is the server (a SIGINT to it stops a QEMU guest), in a process group of its own
// (a Ctrl-C at the terminal reaches ppe-arc, which detaches cleanly, and not the server). Used by
// `sample` and by `descend`, which runs the program once per batch.
#pragma once

#include "ppe/gdbremote/session.h"

#include <chrono>
#include <string>
#include <sys/types.h>

namespace ppe::arc {

// Starts `command`; one simple command only (`exec` would drop what follows a `;` or `&&`).
Result<pid_t> spawnServer(const std::string& command);

// True once `pid` (a child) has exited; it is reaped.
bool exited(pid_t pid);

// Connects to `remote`; a refused connection is retried for `patience` while `server` (a child
// ppe-arc started, or -1 for none: no retry) may still be starting, and not once it has ended.
Result<gdbremote::Session> connectToServer(const std::string& remote, pid_t server, std::chrono::milliseconds patience,
    gdbremote::SessionOptions options = {});

// Waits up to 5 s for a spawned server to end by itself (it does after a detach or the program's
// end), then kills and reaps it.
struct SpawnedServer {
    pid_t pid = -1;
    SpawnedServer() = default;
    explicit SpawnedServer(pid_t p)
        : pid(p)
    {
    }
    SpawnedServer(const SpawnedServer&) = delete;
    SpawnedServer& operator=(const SpawnedServer&) = delete;
    ~SpawnedServer();
};

} // namespace ppe::arc
