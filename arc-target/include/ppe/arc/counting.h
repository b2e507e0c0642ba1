// Global counts of PCT events over a run of the target (`ppe-arc count --event crun,iall`): the
// counters are stopped, zeroed and given their conditions while the target stands stopped, run
// while it runs, and read once it stops again — at the end of the asked duration (stopped by the
// target control), when it halts by itself (a bare-metal program's `flag 1` or breakpoint), or at
// an interrupt; with a range (`count --range`), only while the PC is in it. A program that exits (W) takes its counters
// with it where the server is a process debugger: that is said, not guessed.
#pragma once

#include "ppe/arc/pct.h"
#include "ppe/gdbremote/target_control.h"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ppe::arc {

// Run-time PCs, both counted.
struct PcRange {
    uint32_t low = 0, high = 0;
};

struct CountRequest {
    std::vector<std::string> events; // condition names, at most one per counter
    CountIn where = CountIn::Both;
    std::chrono::milliseconds duration { 0 }; // 0: until the target stops by itself
    // Every counter counts only inside `range`, through the enable bit of `profile` (verified by
    // read-back before the run: pct.h `limitToRange`).
    std::optional<PcRange> range;
    std::optional<CoreProfile> profile;
};

struct EventCount {
    std::string event;
    uint64_t count = 0;
};

struct CountResult {
    std::vector<EventCount> counts;
    double seconds = 0; // wall time the target ran
    std::string end; // "duration", "interrupted", or what the target's own stop said
};

// Waits while the target runs for its own stop, or until `end` or `stop` (set by a signal), when
// the target control stops it and `why` says "duration" or "interrupted" (empty for its own stop).
// Console output meanwhile goes where the session sends it.
Result<gdbremote::StopReply> awaitStop(gdbremote::TargetControl& control,
    std::optional<gdbremote::Clock::time_point> end, const std::atomic<bool>* stop, std::string& why);

// What ended a run of the target (runUntil).
struct RunEnd {
    std::string why; // "duration", "interrupted", "ended" (the program's end), or "" (a trap accepted)
    std::optional<gdbremote::StopReply> stop; // the stop that ended it: its own, or the one that stopping it gave
};

// A trap's handler: true to end the run there, false to resume.
using TrapHandler = std::function<Result<bool>(const gdbremote::StopReply&)>;

// Resumes the target and lets it run until `end`, an interrupt, the program's end, or a trap
// (signal 0 or 5: a breakpoint, a bare-metal core's halt) that `atTrap` accepts; the program's own
// signals are passed on, and counted in `passed` when given. The one run loop of `count`, `calls`
// (both methods) and the injected program's run to its end.
Result<RunEnd> runUntil(gdbremote::TargetControl& control, std::optional<gdbremote::Clock::time_point> end,
    const std::atomic<bool>* stop, const TrapHandler& atTrap, uint64_t* passed = nullptr);

// The conditions of `events` on `pct`, checked before anything is changed: each known, no more
// than the counters, none twice.
Result<std::vector<uint32_t>> conditionsOf(const Pct& pct, const std::vector<std::string>& events);

Result<CountResult> countEvents(
    gdbremote::TargetControl& control, Pct& pct, const CountRequest& request, const std::atomic<bool>* stop);

} // namespace ppe::arc
