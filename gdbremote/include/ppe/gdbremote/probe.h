// A probing session: what a server supports and how its PC is read, found by trying, then a few
// stop/continue cycles reading the PC, then detaching so the program runs on. The capture tool,
// the live tests and the transcript replays all run this same sequence.
#pragma once

#include "ppe/gdbremote/pc_reader.h"
#include "ppe/gdbremote/session.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace ppe::gdbremote {

struct ProbeOptions {
    int stops = 3; // stop/continue cycles after the first stop
    std::chrono::milliseconds runFor { 100 }; // running time before each interrupt
    std::chrono::milliseconds interruptWait { 1000 }; // for a stop after the 0x03 byte
    // Stops a server that ignores 0x03 while running (QEMU's user-mode stubs): SIGINT to the
    // emulator. Without one such a server is an error.
    std::function<Status()> fallbackInterrupt;
    std::string tdescFile; // --tdesc FILE instead of qXfer:features:read
    bool bigEndian = false;
    bool kill = false; // end with `k` instead of `D`
};

struct ProbeResult {
    ServerFeatures features;
    bool ackMode = true; // after negotiation
    TargetDescription description;
    RegisterInfo pc;
    PcProbe pcProbe;
    std::optional<bool> interruptByte; // did 0x03 stop the running target
    StopReply firstStop;
    std::vector<std::uint64_t> pcs; // at the first stop, then after each interrupt
    std::optional<StopReply> exit; // the program ended while running (W or X)
    std::string report() const;
};

Result<ProbeResult> probeSession(Session& session, const ProbeOptions& options);

} // namespace ppe::gdbremote
