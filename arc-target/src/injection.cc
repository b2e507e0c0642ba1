// Inclusive call counts by code injection (injection.h).
#include "ppe/arc/injection.h"

#include "ppe/arc/counting.h"

#include <cstdio>

namespace ppe::arc {

namespace {

    using gdbremote::Clock;
    using gdbremote::Status;
    using gdbremote::StopReply;

    constexpr uint64_t kMostCode = 1 << 16; // bytes of a function read to look for branches into the patch
    // The counters are kept a page apart from the trampolines where the region allows: a store to a
    // page holding translated code makes an emulator (QEMU) throw that code away and translate it
    // anew, at every call. 16 KiB: the largest page of ARC Linux.
    constexpr uint32_t kPageApart = 16384;

    std::string hexAddress(uint64_t address)
    {
        char text[24];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
        return text;
    }

    std::vector<uint8_t> bytesOf(const std::string& s) { return { s.begin(), s.end() }; }
    std::string stringOf(const std::vector<uint8_t>& v) { return { v.begin(), v.end() }; }

    uint32_t wordAt(const std::string& bytes, size_t offset)
    {
        uint32_t value = 0;
        for (size_t i = 4; i-- > 0;)
            value = value << 8 | uint8_t(bytes[offset + i]);
        return value;
    }

    // Runs the target until it stops at the breakpoint at `at` (""), or at the end of the
    // duration or an interrupt (what stopped it); passes the program's own signals on.
    Result<std::string> runTo(gdbremote::TargetControl& control, gdbremote::TargetAccess& access, uint64_t at,
        std::optional<Clock::time_point> end, const std::atomic<bool>* stop)
    {
        Result<RunEnd> ran = runUntil(control, end, stop, [&](const StopReply&) -> Result<bool> {
            Result<uint64_t> pc = access.readRegister("pc");
            return pc ? Result<bool>(*pc == at) : Result<bool>(pc.error());
        });
        if (!ran)
            return ran.error();
        if (ran->why == "ended")
            return Error { control.session().peer(), 0,
                "the program ended before main returned (exit() or a signal): its counters went with it" };
        return ran->why;
    }

    class Injector {
    public:
        Injector(gdbremote::TargetAccess& access, const InjectOptions& options)
            : m_access(access)
            , m_options(options)
        {
        }
        Status install(const std::vector<ElfFunction>& functions);
        Status readCounters();
        Status remove();
        std::vector<InjectedCalls>& result() { return m_functions; }

    private:
        Status hook(const ElfFunction& f, uint32_t data, uint32_t& code);

        gdbremote::TargetAccess& m_access;
        const InjectOptions& m_options;
        std::vector<InjectedCalls> m_functions;
    };

    // Plans, builds and writes the trampoline of `f` at `code` (moved on past it) with its counters
    // at `data`, then patches the entry through the journal and reads the patch back.
    Status Injector::hook(const ElfFunction& f, uint32_t data, uint32_t& code)
    {
        const uint32_t entry = uint32_t(f.address + m_options.bias);
        Result<std::string> body
            = m_access.readMemory(entry, std::min<uint64_t>(std::max<uint64_t>(f.size, 8), kMostCode));
        if (!body)
            return body.error();
        const std::vector<uint8_t> bytes = bytesOf(*body);
        Result<PatchSite> site = planPatch(f.name, bytes, entry, code);
        if (!site)
            return site.error();
        TrampolineRequest request { entry, *site, std::vector<uint8_t>(bytes.begin(), bytes.begin() + site->size), code,
            data, m_options.capacity, m_options.action, m_options.pctControl };
        Result<Trampoline> t = buildTrampoline(request);
        if (!t)
            return Error { "", 0, f.name + ": " + t.error().message };
        if (code + t->code.size() > m_options.scratch + m_options.scratchSize)
            return Error { "", 0,
                f.name + ": the scratch region is full (" + std::to_string(m_options.scratchSize)
                    + " bytes): give a larger one, or fewer functions" };
        const std::string original = stringOf(request.original);
        if (Status writable = m_access.writeMemoryRaw(entry, original); !writable)
            return Error { "", 0,
                f.name + ": the code at " + hexAddress(entry) + " cannot be written (" + writable.error().message
                    + "; qemu-arc answers E14 to code a program has not made writable): count by breakpoints, "
                      "--method breakpoint" };
        Status done = m_access.writeMemoryRaw(data, std::string(hook::dataSize(m_options.capacity), '\0'));
        done = done ? m_access.writeMemoryRaw(code, stringOf(t->code)) : done;
        if (!done)
            return Error { "", 0,
                f.name + ": the scratch region at " + hexAddress(code) + " cannot be written (" + done.error().message
                    + ")" };
        InjectedCalls hooked;
        hooked.name = f.name;
        hooked.entry = entry;
        hooked.trampoline = code;
        hooked.data = data;
        hooked.patchSize = site->size;
        hooked.original = original;
        m_functions.push_back(std::move(hooked));
        if (done = m_access.writeMemory(entry, stringOf(t->patch)); !done)
            return done;
        Result<std::string> back = m_access.readMemory(entry, t->patch.size());
        if (!back || *back != stringOf(t->patch))
            return Error { "", 0, f.name + ": the patch at " + hexAddress(entry) + " did not read back as written" };
        code += (uint32_t(t->code.size()) + 3) & ~3u;
        return std::monostate {};
    }

    Status Injector::install(const std::vector<ElfFunction>& functions)
    {
        const uint32_t dataSize = hook::dataSize(m_options.capacity);
        const uint32_t first = (m_options.scratch + 3) & ~3u;
        uint32_t code = first + dataSize * uint32_t(functions.size());
        if (code > m_options.scratch + m_options.scratchSize)
            return Error { "", 0,
                "the scratch region (" + std::to_string(m_options.scratchSize) + " bytes) cannot hold the counters of "
                    + std::to_string(functions.size()) + " functions" };
        const uint32_t apart = (code + kPageApart - 1) & ~(kPageApart - 1);
        if (uint64_t(apart) + kPageApart / 4 <= uint64_t(m_options.scratch) + m_options.scratchSize)
            code = apart;
        for (size_t i = 0; i < functions.size(); ++i) {
            if (Status hooked = hook(functions[i], first + dataSize * uint32_t(i), code); !hooked)
                return hooked;
        }
        return std::monostate {};
    }

    Status Injector::readCounters()
    {
        for (InjectedCalls& f : m_functions) {
            Result<std::string> words = m_access.readMemory(f.data, hook::kStack);
            if (!words)
                return words.error();
            f.calls = wordAt(*words, hook::kCalls);
            f.returns = wordAt(*words, hook::kReturns);
            f.depth = wordAt(*words, hook::kDepth);
            f.maxDepth = wordAt(*words, hook::kMaxDepth);
            f.overflow = wordAt(*words, hook::kOverflow);
        }
        return std::monostate {};
    }

    // Every change of the journal undone (the patches and the breakpoints), each entry read back.
    Status Injector::remove()
    {
        if (Status undone = m_access.undoAll(); !undone)
            return undone;
        for (InjectedCalls& f : m_functions) {
            Result<std::string> back = m_access.readMemory(f.entry, f.patchSize);
            if (!back)
                return back.error();
            f.restored = *back;
            if (f.restored != f.original)
                return Error { "", 0,
                    f.name + ": the bytes at " + hexAddress(f.entry) + " read back after removal "
                        + "differ from the original" };
        }
        return std::monostate {};
    }

} // namespace

Result<PatchSite> planPatch(const std::string& name, std::span<const uint8_t> function, uint32_t start, uint32_t code)
{
    Result<PatchSite> site = checkPatchSite(function, start, start, patchLength(start, code));
    if (!site)
        return Error { "", 0,
            name + ": cannot be patched at " + hexAddress(start) + ": " + site.error().message
                + "; count it by breakpoints (--method breakpoint)" };
    return site;
}

Result<InjectionResult> countCallsByInjection(gdbremote::TargetControl& control, gdbremote::TargetAccess& access,
    const std::vector<ElfFunction>& functions, const ElfFunction& main, const InjectOptions& options,
    const std::atomic<bool>* stop)
{
    InjectionResult result;
    const uint64_t mainEntry = main.address + options.bias;
    if (Status set = access.insertBreakpoint(mainEntry, 2); !set)
        return set.error();
    Result<std::string> reached = runTo(control, access, mainEntry, std::nullopt, stop);
    if (!reached || !reached->empty())
        return reached ? Error { "", 0, "interrupted before main was reached" } : reached.error();
    Result<uint64_t> back = access.readRegister("blink");
    Status removed = back ? access.removeBreakpoint(mainEntry, 2) : back.error();
    removed = removed ? access.insertBreakpoint(*back, 2) : removed;
    if (!removed)
        return removed.error();
    result.stops = 2;
    Injector injector(access, options);
    if (Status installed = injector.install(functions); !installed)
        return installed.error();
    const Clock::time_point start = Clock::now();
    const bool timed = options.duration.count() > 0;
    Result<std::string> end
        = runTo(control, access, *back, timed ? std::optional(start + options.duration) : std::nullopt, stop);
    if (!end)
        return end.error();
    result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    result.end = end->empty() ? "main returned" : *end;
    if (options.counter) {
        Result<uint64_t> counted = options.counter();
        if (!counted)
            return counted.error();
        result.counted = *counted;
    }
    Status read = injector.readCounters();
    read = read ? injector.remove() : read;
    if (!read)
        return read.error();
    result.functions = std::move(injector.result());
    return result;
}

} // namespace ppe::arc
