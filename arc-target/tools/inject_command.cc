// `ppe-arc calls --method inject` (inject_command.h): the functions and the scratch region named on
// the command line, the injection run (injection.h), its table and what it cost the target.
#include "inject_command.h"

#include "counter_commands.h"

#include "ppe/arc/counting.h"
#include "ppe/arc/image_check.h"
#include "ppe/arc/injection.h"
#include "ppe/arc/pct.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <sstream>
#include <unistd.h>

using namespace ppe::arc;

namespace {

ppe::Result<std::vector<ElfFunction>> chosenFunctions(const InjectRequest& r, ElfFunction& main)
{
    ppe::Result<std::vector<ElfFunction>> all = readElfFunctions(r.elf);
    if (!all)
        return all.error();
    auto byName = [&](const std::string& name) {
        return std::find_if(all->begin(), all->end(), [&](const ElfFunction& f) { return f.name == name; });
    };
    if (auto found = byName("main"); found != all->end())
        main = *found;
    else
        return ppe::Error { r.elf, 0, "no function main: injection runs from main's entry to its return" };
    std::vector<ElfFunction> chosen;
    std::istringstream names(r.functions);
    for (std::string name; std::getline(names, name, ',');) {
        auto found = byName(name);
        if (found == all->end())
            return ppe::Error { r.elf, 0, "no function " + name + " in its symbol table" };
        chosen.push_back(*found);
    }
    return chosen;
}

std::string hex(const std::string& bytes)
{
    std::string text;
    char two[3];
    for (unsigned char c : bytes) {
        std::snprintf(two, sizeof two, "%02x", c);
        text += two;
    }
    return text;
}

void printInjected(const InjectionResult& result, const InjectOptions& options)
{
    std::printf("%-24s %12s %12s %6s %9s %6s\n", "function", "calls", "returned", "depth", "overflow", "patch");
    for (const InjectedCalls& f : result.functions)
        std::printf(
            "%-24s %12u %12u %6u %9u %6u\n", f.name.c_str(), f.calls, f.returns, f.maxDepth, f.overflow, f.patchSize);
    for (const InjectedCalls& f : result.functions)
        std::printf("%s: entry 0x%x, trampoline 0x%x; bytes %s before, %s after removal\n", f.name.c_str(), f.entry,
            f.trampoline, hex(f.original).c_str(), hex(f.restored).c_str());
    const unsigned pct = options.action == HookAction::Pct ? 3 : 0;
    std::printf("method: code injection (trampolines at 0x%x); cost per call: %u instructions at entry and %u at "
                "return, no stop of the core; %llu breakpoint stops in all\n",
        options.scratch, kEntryInstructions + pct, kExitInstructions + pct,
        static_cast<unsigned long long>(result.stops));
    std::printf("ran %.3f s; ended: %s\n", result.seconds, result.end.c_str());
}

} // namespace

ppe::Result<std::pair<uint32_t, uint32_t>> memoryRegion(
    const std::string& option, const std::string& text, const std::string& elf, uint64_t bias)
{
    const size_t colon = text.find(':');
    if (colon == std::string::npos) {
        ppe::Result<ElfObject> object = readElfObject(elf, text);
        if (!object)
            return object.error();
        return std::pair { uint32_t(object->address + bias), uint32_t(object->size) };
    }
    char* end = nullptr;
    errno = 0;
    const unsigned long long address = std::strtoull(text.c_str(), &end, 0);
    const bool addressOk = end == text.c_str() + colon && !errno && address <= 0xffffffffu;
    const unsigned long long size = std::strtoull(text.c_str() + colon + 1, &end, 0);
    if (!addressOk || *end || errno || size == 0 || address + size > 0x100000000ull)
        return ppe::Error { "", 0, option + " " + text + ": not SYMBOL or ADDR:SIZE" };
    return std::pair { uint32_t(address), uint32_t(size) };
}

int injectCalls(Attachment& a, const InjectRequest& r, const std::atomic<bool>& stop)
{
    ElfFunction main;
    ppe::Result<std::vector<ElfFunction>> functions = chosenFunctions(r, main);
    if (!functions)
        return controlFail(functions.error().str());
    if (a.description.architecture.rfind("arc", 0) != 0)
        return controlFail("code injection builds ARC code: the target is " + a.description.architecture
            + " (count by breakpoints: --method breakpoint)");
    ppe::Result<ElfImage> elf = readElfImage(r.elf);
    ppe::Result<uint64_t> bias = elf ? checkImage(a.session, *elf, a.description.architecture) : elf.error();
    if (!bias)
        return controlFail(bias.error().str());
    ppe::Result<std::pair<uint32_t, uint32_t>> scratch = memoryRegion("--scratch", r.scratch, r.elf, *bias);
    if (!scratch)
        return controlFail(scratch.error().str());
    InjectOptions options;
    options.bias = *bias;
    options.scratch = scratch->first;
    options.scratchSize = scratch->second;
    options.capacity = r.capacity;
    options.action = r.event.empty() ? HookAction::Counters : HookAction::Pct;
    options.duration = std::chrono::milliseconds(int64_t(r.durationSeconds * 1000));
    std::optional<Pct> pct;
    if (!r.event.empty()) {
        ppe::Result<Pct> ready = prepareCounter(r.aux, r.event, false); // the trampoline starts it
        if (!ready)
            return controlFail(ready.error().str());
        pct.emplace(std::move(*ready));
        options.counter = [&pct] { return pct->read(0); };
    }
    ppe::Result<InjectionResult> result = countCallsByInjection(a.control, a.access, *functions, main, options, &stop);
    if (!result)
        return controlFail(result.error().str());
    printInjected(*result, options);
    if (result->counted)
        std::printf("%s: %s %llu inclusive, counted from each outermost entry to its return\n",
            functions->front().name.c_str(), r.event.c_str(), static_cast<unsigned long long>(*result->counted));
    // To its end, the program's own signals passed on: its output is whole. No breakpoint of ours is
    // left, so a trap is a bare-metal core's halt at the program's end.
    ppe::Result<RunEnd> ran = runUntil(
        a.control, std::nullopt, &stop, [](const ppe::gdbremote::StopReply&) { return ppe::Result<bool>(true); });
    return ran ? 0 : controlFail(ran.error().str());
}
