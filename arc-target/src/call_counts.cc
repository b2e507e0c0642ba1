#include "ppe/arc/call_counts.h"

#include "ppe/arc/counting.h"

#include "ppe/gdbremote/hex.h"

#include <algorithm>
#include <map>
#include <set>

namespace ppe::arc {

namespace {

    using gdbremote::Clock;
    using gdbremote::Status;
    using gdbremote::StopReply;

    // Where an architecture keeps what a call needs: the PC, the stack pointer, the return address
    // (a register, or the word at the stack pointer), and how a return moves the stack pointer.
    struct CallConvention {
        std::string pc, sp, returnRegister; // returnRegister "": the word at sp
        uint64_t spAfterReturn = 0; // what a return adds to the stack pointer at entry
        unsigned breakpointKind = 2;
        bool pcPastBreakpoint = false; // the stop leaves the PC after the trap (x86 int3)
    };

    Result<CallConvention> conventionOf(const std::string& architecture)
    {
        if (architecture.rfind("arc", 0) == 0)
            return CallConvention { "pc", "sp", "blink", 0, 2, false };
        if (architecture.rfind("aarch64", 0) == 0)
            return CallConvention { "pc", "sp", "x30", 0, 4, false };
        if (architecture == "i386:x86-64")
            return CallConvention { "rip", "rsp", "", 8, 1, true };
        return Error { "", 0, "calls cannot be counted on '" + architecture + "' (ARC, AArch64 and x86-64 can)" };
    }

    struct Activation {
        size_t function;
        uint64_t sp; // the stack pointer the return will leave
    };

    class CallCounter {
    public:
        CallCounter(gdbremote::TargetControl& control, gdbremote::TargetAccess& access, CallConvention convention,
            const CallCountOptions& options)
            : m_control(control)
            , m_access(access)
            , m_cc(std::move(convention))
            , m_options(options)
        {
        }

        Status start(const std::vector<ElfFunction>& functions);
        Status enterWhereStopped();
        Result<std::string> run(const std::atomic<bool>* stop);
        Status closeUnfinished();
        CallCountResult& result() { return m_result; }

    private:
        Status onBreakpoint(const StopReply& stop);
        Status enter(size_t function, const std::string& thread);
        Status leave(uint64_t at, const std::string& thread);
        Status stepOver(uint64_t at, const std::string& thread);
        Status want(uint64_t at);
        Result<uint64_t> pc(const StopReply& stop);

        gdbremote::TargetControl& m_control;
        gdbremote::TargetAccess& m_access;
        CallConvention m_cc;
        const CallCountOptions& m_options;
        CallCountResult m_result;
        std::map<uint64_t, size_t> m_entries; // run-time entry -> function
        std::map<std::pair<uint64_t, std::string>, std::vector<Activation>> m_pending; // (return, thread)
        std::map<std::pair<size_t, std::string>, uint32_t> m_depth; // (function, thread)
        std::map<std::pair<size_t, std::string>, uint64_t> m_started; // counter at the outermost entry
        std::set<uint64_t> m_inserted, m_journalled;
    };

    // A breakpoint at `at`, journalled the first time only.
    Status CallCounter::want(uint64_t at)
    {
        if (m_inserted.count(at))
            return std::monostate {};
        Status done = m_journalled.count(at) ? m_access.reinsertBreakpoint(at, m_cc.breakpointKind)
                                             : m_access.insertBreakpoint(at, m_cc.breakpointKind);
        if (done) {
            m_inserted.insert(at);
            m_journalled.insert(at);
        }
        return done;
    }

    Status CallCounter::start(const std::vector<ElfFunction>& functions)
    {
        for (const ElfFunction& f : functions) {
            const uint64_t entry = f.address + m_options.bias;
            m_entries[entry] = m_result.functions.size();
            m_result.functions.push_back({ f.name, entry });
            if (Status inserted = want(entry); !inserted)
                return inserted;
        }
        return std::monostate {};
    }

    Result<uint64_t> CallCounter::pc(const StopReply& stop)
    {
        Result<uint64_t> value = m_access.readRegister(m_cc.pc);
        if (!value || !m_cc.pcPastBreakpoint || stop.reason == "swbreak" || !m_inserted.count(*value - 1))
            return value;
        // x86 without swbreak (SessionOptions): the int3 ran; GDB sets the PC back to the
        // breakpoint's address before going on.
        const gdbremote::RegisterInfo* reg = m_access.registerNamed(m_cc.pc);
        if (Status set = m_access.writeRegisterBytes(*reg, gdbremote::registerBytes(*value - 1, reg->bytes(), false));
            !set)
            return set.error();
        return *value - 1;
    }

    Status CallCounter::enter(size_t function, const std::string& thread)
    {
        FunctionCalls& f = m_result.functions[function];
        Result<uint64_t> sp = m_access.readRegister(m_cc.sp);
        if (!sp)
            return sp.error();
        Result<uint64_t> back = Error { "", 0, "" };
        if (m_cc.returnRegister.empty()) {
            Result<std::string> word = m_access.readMemory(*sp, 8);
            if (!word)
                return word.error();
            uint64_t value = 0;
            for (size_t i = word->size(); i-- > 0;)
                value = value << 8 | uint8_t((*word)[i]);
            back = value;
        } else {
            back = m_access.readRegister(m_cc.returnRegister);
        }
        if (!back)
            return back.error();
        uint32_t& depth = m_depth[{ function, thread }];
        ++f.calls;
        f.maxDepth = std::max(f.maxDepth, ++depth);
        if (depth == 1) {
            ++f.outermost;
            if (m_options.counter) {
                Result<uint64_t> now = m_options.counter();
                if (!now)
                    return now.error();
                m_started[{ function, thread }] = *now;
            }
        }
        if (*back == 0) // no return address (a reset entry): the call runs to the end
            return std::monostate {};
        m_pending[{ *back, thread }].push_back({ function, *sp + m_cc.spAfterReturn });
        return want(*back);
    }

    // A function whose entry is where the core stands as counting begins (a bare-metal image's
    // entry, halted there on attach) is entered without a breakpoint stop: entered now, and stepped
    // over, as GDB steps over a breakpoint at the PC before it resumes (servers differ there).
    Status CallCounter::enterWhereStopped()
    {
        Result<uint64_t> at = m_access.readRegister(m_cc.pc);
        if (!at)
            return at.error();
        auto entry = m_entries.find(*at);
        if (entry == m_entries.end())
            return std::monostate {};
        const std::optional<StopReply>& last = m_control.session().lastStop();
        const std::string thread = last ? last->thread : std::string();
        if (Status entered = enter(entry->second, thread); !entered)
            return entered;
        return stepOver(*at, thread);
    }

    // Outermost calls still under way when counting ends (the program halted inside them, or the
    // duration ran out) count the events up to the end; their function's `unfinished` says so.
    Status CallCounter::closeUnfinished()
    {
        if (!m_options.counter || m_control.state() != gdbremote::TargetState::Stopped)
            return std::monostate {};
        for (const auto& [key, depth] : m_depth) {
            if (depth == 0)
                continue;
            Result<uint64_t> now = m_options.counter();
            if (!now)
                return now.error();
            FunctionCalls& f = m_result.functions[key.first];
            ++f.unfinished;
            f.inclusive += *now - m_started[key];
        }
        return std::monostate {};
    }

    // At a return address: the newest call of this thread that returns here with this stack
    // pointer has returned (a jump to the address, or another thread, is not a return).
    Status CallCounter::leave(uint64_t at, const std::string& thread)
    {
        auto pending = m_pending.find({ at, thread });
        if (pending == m_pending.end())
            return std::monostate {};
        Result<uint64_t> sp = m_access.readRegister(m_cc.sp);
        if (!sp)
            return sp.error();
        std::vector<Activation>& calls = pending->second;
        auto match = std::find_if(calls.rbegin(), calls.rend(), [&](const Activation& a) { return a.sp == *sp; });
        if (match == calls.rend())
            return std::monostate {};
        const size_t function = match->function;
        calls.erase(std::next(match).base());
        if (calls.empty())
            m_pending.erase(pending);
        uint32_t& depth = m_depth[{ function, thread }];
        if (depth > 0 && --depth == 0) {
            FunctionCalls& f = m_result.functions[function];
            ++f.returns;
            if (m_options.counter) {
                Result<uint64_t> now = m_options.counter();
                if (!now)
                    return now.error();
                f.inclusive += *now - m_started[{ function, thread }];
            }
        }
        return std::monostate {};
    }

    // Steps the thread over the breakpoint at `at`, which stays only while something wants it.
    Status CallCounter::stepOver(uint64_t at, const std::string& thread)
    {
        const bool stillWanted = m_entries.count(at)
            || std::any_of(m_pending.begin(), m_pending.end(), [at](const auto& p) { return p.first.first == at; });
        if (Status removed = m_access.removeBreakpoint(at, m_cc.breakpointKind); !removed)
            return removed;
        m_inserted.erase(at);
        Result<StopReply> stepped = m_control.step(thread);
        if (!stepped)
            return stepped.error();
        if (stepped->ended() || !stillWanted)
            return std::monostate {};
        return want(at);
    }

    Status CallCounter::onBreakpoint(const StopReply& stop)
    {
        Result<uint64_t> at = pc(stop);
        if (!at)
            return at.error();
        if (!m_inserted.count(*at))
            return std::monostate {}; // a trap of the program's own: passed on by the caller
        ++m_result.stops;
        if (Status left = leave(*at, stop.thread); !left)
            return left;
        if (auto entry = m_entries.find(*at); entry != m_entries.end()) {
            if (Status entered = enter(entry->second, stop.thread); !entered)
                return entered;
        }
        return stepOver(*at, stop.thread);
    }

    Result<std::string> CallCounter::run(const std::atomic<bool>* stop)
    {
        const bool timed = m_options.duration.count() > 0;
        Result<RunEnd> ran = runUntil(
            m_control, timed ? std::optional(Clock::now() + m_options.duration) : std::nullopt, stop,
            [&](const StopReply& trap) -> Result<bool> {
                const uint64_t before = m_result.stops;
                if (Status handled = onBreakpoint(trap); !handled)
                    return handled.error();
                return m_result.stops == before; // not at a breakpoint of ours: a bare-metal core's halt
            },
            &m_result.programSignals);
        if (!ran)
            return ran.error();
        if (ran->why == "ended")
            return std::string("the program ended");
        if (ran->why.empty())
            return "the target halted (signal " + std::to_string(ran->stop->code) + ")";
        return ran->why;
    }

} // namespace

Result<CallCountResult> countCalls(gdbremote::TargetControl& control, gdbremote::TargetAccess& access,
    const std::string& architecture, const std::vector<ElfFunction>& functions, const CallCountOptions& options,
    const std::atomic<bool>* stop)
{
    Result<CallConvention> convention = conventionOf(architecture);
    if (!convention)
        return convention.error();
    CallCounter counter(control, access, *convention, options);
    if (Status started = counter.start(functions); !started)
        return started.error();
    const Clock::time_point start = Clock::now();
    if (Status entered = counter.enterWhereStopped(); !entered)
        return entered.error();
    Result<std::string> end = counter.run(stop);
    if (!end)
        return end.error();
    if (Status closed = counter.closeUnfinished(); !closed)
        return closed.error();
    counter.result().seconds = std::chrono::duration<double>(Clock::now() - start).count();
    counter.result().end = *end;
    return std::move(counter.result());
}

} // namespace ppe::arc
