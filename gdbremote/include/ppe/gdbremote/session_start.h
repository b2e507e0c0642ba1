// How ppe-arc's sessions start (sampling, --baseline's unsampled run, poke, restore): the server's
// features negotiated, then the stop it holds the program at. One place, so that each command
// starts a session the same way and says the same when the program has already ended.
#pragma once

#include "ppe/gdbremote/session.h"
#include "ppe/gdbremote/stop_reply.h"
#include "ppe/support/result.h"

namespace ppe::gdbremote {

// negotiate() (qSupported, QStartNoAckMode where offered), then haltReason() (`?`). With
// `mustBeRunning`, a program that has already ended is an error naming the server.
Result<StopReply> startSession(Session& session, bool mustBeRunning);

} // namespace ppe::gdbremote
