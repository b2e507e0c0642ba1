// One `ppe-arc sample` run from its request to the .ppe text: start the server (--spawn),
// connect, negotiate, find the PC by name, probe how to read it, sample, and attribute.
#pragma once

#include "ppe/gdbremote/session.h"

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace ppe::arc {

struct SampleRequest {
    std::string remote; // HOST:PORT
    std::string elf;
    double intervalMs = 10;
    double durationSeconds = 0; // 0: until the end or the stop flag
    std::string output; // "" : PROG.ppe in the current directory
    std::string tdesc;
    std::string spawn; // a shell command starting the server, run as ppe-arc's child
    // --baseline (with spawn): first run the program through a server of its own with no stop, and
    // compare the sampled run's wall time with that one's.
    bool baseline = false;
    std::string mode = "auto"; // all-stop, non-stop, running (no stop: sampler.h), auto (non-stop where offered)
    bool everyThread = true; // all-stop: every thread's PC at each stop (--threads all), else the stopped one's
    uint64_t memPages = 2048; // histogram budget, 512-byte pages
    uint64_t seed = 0;
    bool seedGiven = false;
    double connectSeconds = 10;
    std::string producer = "ppe-arc";
    std::vector<std::string> command; // ppe-arc's own arguments, for the .ppe
};

struct SampleOutcome {
    std::string output; // where the .ppe goes
    std::string text; // the .ppe; empty when nothing was sampled
    std::string error; // one line; the .ppe (if any) holds the samples before it
    std::vector<std::string> notes; // what the probe found, the intrusion
};

// Enters non-stop mode where the server offers it (`mode` "auto") or where asked ("non-stop"; an
// error when not offered or refused), else stays in all-stop mode ("all-stop", or auto without
// it): how the mode was chosen, one line. After `?` and the target description (gdbserver 13
// asserts when target.xml is read before `?` chose a thread); ends with `?` in non-stop mode.
Result<std::string> chooseMode(gdbremote::Session& session, const std::string& mode);

// Whether the server is QEMU's stub (it answers its own query, `qqemu.sstepbits`: gdbserver,
// OpenOCD and nSIM answer an unknown query with nothing), and QEMU's user-mode one (it also offers
// the auxiliary vector, a process's; the system-mode one does not).
struct QemuStub {
    bool qemu = false, user = false;
};
Result<QemuStub> probeQemu(gdbremote::Session& session);

// Runs the request; `stop` (set from a signal handler) ends sampling early.
SampleOutcome runSampling(const SampleRequest& request, const std::atomic<bool>& stop);

} // namespace ppe::arc
