// Stop replies (GDB manual, "Stop Reply Packets"): `S AA`, `T AA n:r;...`, `W AA`, `X AA`, and
// the less common `N` and `w`. Pure parsing.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace ppe::gdbremote {

struct StopReply {
    enum class Kind { Signal, Exited, Terminated, NoResumed, ThreadExited };
    Kind kind = Kind::Signal;
    int code = 0; // the signal (S, T, X, w) or the exit status (W, w)
    std::string thread; // `thread:` of T ("p1f.1f" with multiprocess, else "1f")
    std::string process; // `;process:PID` of W and X
    std::string reason; // a T key naming why it stopped without a value of interest (swbreak, ...)
    std::map<unsigned, std::string> registers; // expedited registers: number -> raw bytes

    bool stopped() const { return kind == Kind::Signal; }
    bool ended() const { return kind == Kind::Exited || kind == Kind::Terminated; }
};

// `text` is the payload (without `$`, `#cs` or `%Stop:`); errors name the payload.
Result<StopReply> parseStopReply(std::string_view text);

} // namespace ppe::gdbremote
