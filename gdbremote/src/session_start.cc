#include "ppe/gdbremote/session_start.h"

namespace ppe::gdbremote {

Result<StopReply> startSession(Session& session, bool mustBeRunning)
{
    if (auto features = session.negotiate(); !features)
        return features.error();
    auto first = session.haltReason();
    if (!first)
        return first.error();
    if (mustBeRunning && first->ended())
        return Error { session.peer(), 0, "the program has already ended" };
    return first;
}

} // namespace ppe::gdbremote
