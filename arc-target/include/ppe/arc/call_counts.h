// Inclusive counts of functions by breakpoints (issue 37; works on any server with `Z0`): a
// breakpoint at each function's entry; when one is hit, the return address (ARC `blink`, AArch64
// `x30`, x86-64 the word at the stack pointer) and the stack pointer are noted and a breakpoint is
// put at the return address; when that one is hit by the same thread with the stack pointer the
// call will leave, the call has returned. The calls, the outermost calls (recursion is counted by
// depth, per thread) and, with an event counter, the events between the outermost entry and its
// return: the function's inclusive count. A breakpoint is stepped over by removing it, stepping one
// instruction and putting it back. Every breakpoint goes through the undo journal once.
//
// The core is halted at every breakpoint; hardware counters do not run while it is (check what the
// target does: the simulated target of the tests freezes them), so the counts are of the program,
// but its time is stretched by two stops per call. A function entered where the core stands when
// counting begins (a bare-metal entry point) counts from then; an outermost call still under way at
// the end (a `main` that halts instead of returning) counts up to the end, if the core is stopped
// there and its counter can be read.
#pragma once

#include "ppe/arc/elf_image.h"
#include "ppe/gdbremote/target_access.h"

#include <atomic>
#include <chrono>
#include <functional>

namespace ppe::arc {

struct CallCountOptions {
    std::chrono::milliseconds duration { 0 }; // 0: until the program ends or halts
    std::function<Result<uint64_t>()> counter; // the event counter to read at entry and return, or none
    uint64_t bias = 0; // the load bias: run-time address = link-time address + bias
};

struct FunctionCalls {
    std::string name;
    uint64_t entry = 0; // run-time
    uint64_t calls = 0;
    uint64_t outermost = 0; // calls made while no other call of the function was under way
    uint64_t returns = 0; // outermost calls seen to return
    uint32_t maxDepth = 0;
    uint64_t inclusive = 0; // counter events between outermost entries and their returns (or the end)
    uint64_t unfinished = 0; // outermost calls under way at the end (the program halted in them): counted to it
};

struct CallCountResult {
    std::vector<FunctionCalls> functions;
    uint64_t stops = 0; // breakpoint stops, each costing the target a halt
    uint64_t programSignals = 0; // the program's own signals, passed on
    double seconds = 0;
    std::string end;
};

// Counts the calls of `functions` (link-time entries) in the stopped target reached by `control`
// and `access`, whose architecture is `architecture` (the target description's).
Result<CallCountResult> countCalls(gdbremote::TargetControl& control, gdbremote::TargetAccess& access,
    const std::string& architecture, const std::vector<ElfFunction>& functions, const CallCountOptions& options,
    const std::atomic<bool>* stop);

} // namespace ppe::arc
