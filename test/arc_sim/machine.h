// A STAND-IN for an ARC core running a program, for tests only (README.md): a deterministic
// machine that "runs" a weighted call tree (call_tree.h) over a real ARC image's function symbols.
// No instruction is decoded; the machine walks each call through a fixed layout of the function's
// bytes, so that the PC, `blink` and breakpoints behave as on the core:
//
//     address              the entry instruction (1 cycle): a breakpoint here sees blink = return
//     address + 2 ...      own work: INSTRUCTIONS instructions of CYCLES cycles, cycling over the
//                          bytes up to the call sites
//     site k = end-2-8m+8k `bl callee` (1 cycle); blink = site k + 4, the return address
//     site k + 4           the instruction after the call (1 cycle), once per return; back to
//                          site k while the edge has calls left
//     end - 2              `j_s [blink]` (1 cycle): back to the caller's return address
//
// blink always holds the running function's return address (real code saves it around calls and
// restores it before returning). Each executed instruction is one step: its cycles and the
// instruction go to the PCT model as "crun" and "iall" (and "always" by cycle), in kernel mode
// where the function is marked so, at its PC. Nothing counts while the machine is halted.
#pragma once

#include "call_tree.h"
#include "pct_model.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ppe::arc::sim {

struct MachineTotals {
    uint64_t cycles = 0, instructions = 0, kernelCycles = 0, steps = 0;
};

class Machine {
public:
    // `start`: where the machine begins (the image's entry, `__start`): one `bl` there (1 cycle)
    // calls the root function, which returns to `start + 4`, the PC once the program has ended. So
    // a breakpoint at the root's entry is hit, as when a C runtime calls main.
    Machine(CallTree tree, testing::PctModel& pct, uint32_t start);

    enum class Event { None, Breakpoint, Ended };
    // One instruction, unless the PC is at a breakpoint and `overBreakpoint` is false (then
    // Breakpoint, nothing executed). Ended once the root function has returned.
    Event step(bool overBreakpoint = false);
    // Up to `steps` instructions: stops before a breakpoint (but not at the first instruction, the
    // one the machine was resumed at) or at the end.
    Event run(uint64_t steps, bool overFirst);

    bool ended() const { return m_started && m_frames.empty(); }
    uint32_t pc() const;
    uint32_t blink() const;
    // The stack pointer: 32 bytes a frame, the frame made after the entry instruction (a prologue),
    // so that sp at a function's entry equals sp back at its return address, as on the core.
    uint32_t sp() const;
    bool kernelMode() const;
    const MachineTotals& totals() const { return m_totals; }
    // Cycles run at the PCs of function `name` (inside its bytes: exclusive of its callees).
    uint64_t cyclesIn(const std::string& name) const;
    const CallTree& tree() const { return m_tree; }
    // The function whose bytes hold `pc`, or nullptr.
    const TreeFunction* functionAt(uint32_t pc) const;
    uint32_t startAddress() const { return m_start; } // `__start`, where the machine begins

    std::set<uint32_t>& breakpoints() { return m_breakpoints; }

    // Exact cycles of one call of function `name` made from the root's first activation of it
    // (the recursion depth there counts): what counters started at its entry and read at its
    // return must show. Computed from the tree, not from a run.
    uint64_t inclusiveCycles(const std::string& name) const;
    // Cycles of the whole run: the start's `bl` and the root's inclusive cycles.
    uint64_t runCycles() const;

private:
    enum class Phase { Entry, Own, Call, After, Return };
    struct Frame {
        size_t function;
        uint32_t returnAddress;
        Phase phase = Phase::Entry;
        uint64_t done = 0; // own instructions, or calls of the current edge
        size_t edge = 0;
    };
    uint32_t site(const Frame& f, size_t edge) const;
    uint32_t pcOf(const Frame& f) const;
    uint32_t execute(Frame& f); // cycles of the instruction; advances the frame
    void nextEdge(Frame& f);
    void start();
    bool edgeTaken(const Frame& f, size_t edge) const;
    uint64_t inclusive(size_t function, std::vector<unsigned>& active) const;
    bool firstPath(size_t from, size_t target, std::vector<unsigned>& active, uint64_t& out) const;

    CallTree m_tree;
    testing::PctModel& m_pct;
    uint32_t m_start, m_exit;
    bool m_started = false;
    std::vector<Frame> m_frames;
    std::vector<unsigned> m_active; // activations per function
    std::set<uint32_t> m_breakpoints;
    MachineTotals m_totals;
    std::vector<uint64_t> m_cyclesIn; // per function, as run
};

} // namespace ppe::arc::sim
