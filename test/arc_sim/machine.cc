#include "machine.h"

namespace ppe::arc::sim {

Machine::Machine(CallTree tree, testing::PctModel& pct, uint32_t start)
    : m_tree(std::move(tree))
    , m_pct(pct)
    , m_start(start)
    , m_exit(start + 4)
    , m_active(m_tree.functions.size())
    , m_cyclesIn(m_tree.functions.size())
{
}

void Machine::start()
{
    m_started = true;
    m_frames.push_back({ m_tree.root, m_exit });
    m_active[m_tree.root] = 1;
}

uint32_t Machine::site(const Frame& f, size_t edge) const
{
    const TreeFunction& fn = m_tree.functions[f.function];
    return fn.address + fn.size - 2 - 8 * uint32_t(fn.calls.size()) + 8 * uint32_t(edge);
}

uint32_t Machine::pcOf(const Frame& f) const
{
    const TreeFunction& fn = m_tree.functions[f.function];
    switch (f.phase) {
    case Phase::Entry:
        return fn.address;
    case Phase::Own: {
        const uint32_t ownBytes = (site(f, 0) - fn.address - 2) & ~1u;
        return fn.address + 2 + uint32_t((2 * f.done) % ownBytes);
    }
    case Phase::Call:
        return site(f, f.edge);
    case Phase::After:
        return site(f, f.edge) + 4;
    case Phase::Return:
        break;
    }
    return fn.address + fn.size - 2;
}

uint32_t Machine::pc() const
{
    if (!m_started)
        return m_start;
    return m_frames.empty() ? m_exit : pcOf(m_frames.back());
}

uint32_t Machine::blink() const { return m_frames.empty() ? m_exit : m_frames.back().returnAddress; }

uint32_t Machine::sp() const
{
    const bool entering = !m_frames.empty() && m_frames.back().phase == Phase::Entry;
    return 0x5ffff000u - 32 * uint32_t(m_frames.size() - (entering ? 1 : 0));
}

bool Machine::kernelMode() const { return !m_frames.empty() && m_tree.functions[m_frames.back().function].kernel; }

const TreeFunction* Machine::functionAt(uint32_t pc) const
{
    for (const TreeFunction& fn : m_tree.functions) {
        if (pc >= fn.address && pc < fn.address + fn.size)
            return &fn;
    }
    return nullptr;
}

bool Machine::edgeTaken(const Frame& f, size_t edge) const
{
    const CallEdge& e = m_tree.functions[f.function].calls[edge];
    return m_active[e.callee] < m_tree.functions[e.callee].recurse;
}

void Machine::nextEdge(Frame& f)
{
    const size_t edges = m_tree.functions[f.function].calls.size();
    while (f.edge < edges && !edgeTaken(f, f.edge))
        ++f.edge;
    f.phase = f.edge < edges ? Phase::Call : Phase::Return;
    f.done = 0;
}

uint32_t Machine::execute(Frame& f)
{
    const TreeFunction& fn = m_tree.functions[f.function];
    switch (f.phase) {
    case Phase::Entry:
        f.phase = Phase::Own;
        if (fn.instructions == 0)
            nextEdge(f);
        return 1;
    case Phase::Own:
        if (++f.done == fn.instructions) {
            f.edge = 0;
            nextEdge(f);
        }
        return fn.cycles;
    case Phase::Call: {
        f.phase = Phase::After;
        const size_t callee = fn.calls[f.edge].callee;
        const uint32_t returnAddress = site(f, f.edge) + 4;
        ++m_active[callee];
        m_frames.push_back({ callee, returnAddress }); // `f` is not used after this
        return 1;
    }
    case Phase::After:
        if (++f.done < fn.calls[f.edge].times) {
            f.phase = Phase::Call;
        } else {
            ++f.edge;
            nextEdge(f);
        }
        return 1;
    case Phase::Return:
        break;
    }
    --m_active[f.function];
    m_frames.pop_back(); // `f` is gone
    return 1;
}

Machine::Event Machine::step(bool overBreakpoint)
{
    if (ended())
        return Event::Ended;
    const uint32_t at = pc();
    if (!overBreakpoint && m_breakpoints.count(at))
        return Event::Breakpoint;
    const bool kernel = kernelMode();
    uint32_t cycles = 1; // the start's `bl`
    if (!m_started) {
        start();
    } else {
        const size_t function = m_frames.back().function;
        cycles = execute(m_frames.back());
        m_cyclesIn[function] += cycles;
    }
    m_totals.cycles += cycles;
    m_totals.kernelCycles += kernel ? cycles : 0;
    ++m_totals.instructions;
    ++m_totals.steps;
    m_pct.happen("crun", cycles, kernel, at);
    m_pct.happen("iall", 1, kernel, at);
    return m_frames.empty() ? Event::Ended : Event::None;
}

Machine::Event Machine::run(uint64_t steps, bool overFirst)
{
    for (uint64_t i = 0; i < steps; ++i) {
        if (const Event e = step(overFirst && i == 0); e != Event::None)
            return e;
    }
    return Event::None;
}

uint64_t Machine::inclusive(size_t function, std::vector<unsigned>& active) const
{
    const TreeFunction& fn = m_tree.functions[function];
    ++active[function];
    uint64_t cycles = 1 + fn.instructions * fn.cycles + 1; // entry, own work, return
    for (const CallEdge& e : fn.calls) {
        if (active[e.callee] < m_tree.functions[e.callee].recurse)
            cycles += e.times * (1 + inclusive(e.callee, active) + 1); // bl, the call, the instruction after
    }
    --active[function];
    return cycles;
}

bool Machine::firstPath(size_t from, size_t target, std::vector<unsigned>& active, uint64_t& out) const
{
    if (from == target) {
        out = inclusive(from, active);
        return true;
    }
    bool found = false;
    ++active[from];
    for (const CallEdge& e : m_tree.functions[from].calls) {
        if (!found && active[e.callee] < m_tree.functions[e.callee].recurse)
            found = firstPath(e.callee, target, active, out);
    }
    --active[from];
    return found;
}

uint64_t Machine::inclusiveCycles(const std::string& name) const
{
    std::vector<unsigned> active(m_tree.functions.size());
    uint64_t cycles = 0;
    return firstPath(m_tree.root, m_tree.find(name), active, cycles) ? cycles : 0;
}

uint64_t Machine::cyclesIn(const std::string& name) const
{
    const size_t function = m_tree.find(name);
    return function < m_cyclesIn.size() ? m_cyclesIn[function] : 0;
}

uint64_t Machine::runCycles() const
{
    std::vector<unsigned> active(m_tree.functions.size());
    return 1 + inclusive(m_tree.root, active);
}

} // namespace ppe::arc::sim
