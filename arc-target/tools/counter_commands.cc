// `ppe-arc conditions`, `ppe-arc count` and `ppe-arc calls`: the ARC performance counters and the
// breakpoint call counts from the command line (issue 37). Both attach to a stopped target, find a way to its aux
// registers (aux_registers.h) and say which, change the PCT only through the undo journal, and put it back as it was
// found before they detach.
#include "counter_commands.h"

#include "control_commands.h"
#include "inject_command.h"
#include "ppe/arc/call_counts.h"
#include "ppe/arc/counting.h"
#include "ppe/arc/image_check.h"
#include "ppe/arc/sample_run.h"
#include "ppe/arc/spawned_server.h"
#include "ppe/arc/static_calls.h"
#include "ppe/core/output_file.h"

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>

namespace po = boost::program_options;
using namespace ppe::arc;

namespace {

struct CounterRequest {
    std::string remote, journal, transcript, events, where = "both", elf, functions, graph, spawn, dot;
    std::string range, profilePath; // count --range, --core-profile
    std::string method = "breakpoint", scratch; // calls --method, --scratch
    std::string auxStub; // --aux-stub: where the lr/sr stub may run (aux_registers.h, back end 3)
    unsigned depth = 64; // calls --method inject: saved returns per function
    std::optional<CoreProfile> profile;
    double durationSeconds = 0, threshold = 1;
    unsigned batch = 8;
};

std::vector<std::string> splitEvents(const std::string& text)
{
    std::vector<std::string> events;
    std::istringstream in(text);
    for (std::string event; std::getline(in, event, ',');) {
        if (!event.empty())
            events.push_back(event);
    }
    return events;
}

void printConditions(const Pct& pct)
{
    const PctBuild& b = pct.build();
    std::printf("%u counters of %u bits%s; %zu countable conditions\n", b.counters, b.counterBits,
        b.interrupts ? ", overflow interrupts" : "", pct.conditions().size());
    for (const CountableCondition& c : pct.conditions())
        std::printf("%4u  %s\n", c.index, c.name.c_str());
}

ppe::Result<CountRequest> countRequestOf(const CounterRequest& r)
{
    CountRequest request;
    request.events = splitEvents(r.events);
    if (r.where != "both" && r.where != "user" && r.where != "kernel")
        return ppe::Error { "", 0, "--in " + r.where + ": not both, user or kernel" };
    request.where = r.where == "user" ? CountIn::User : r.where == "kernel" ? CountIn::Kernel : CountIn::Both;
    if (!(r.durationSeconds >= 0 && r.durationSeconds <= 1e6))
        return ppe::Error { "", 0, "--duration: not a number of seconds" };
    request.duration = std::chrono::milliseconds(int64_t(r.durationSeconds * 1000));
    return request;
}

// --range LO-HI: two addresses (hex with 0x, or decimal), both counted; nullopt for anything else.
std::optional<PcRange> addressRange(const std::string& text)
{
    const size_t dash = text.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == text.size())
        return std::nullopt;
    PcRange range;
    for (auto [part, value] :
        { std::pair { text.substr(0, dash), &range.low }, { text.substr(dash + 1), &range.high } }) {
        char* end = nullptr;
        errno = 0;
        const unsigned long long n = std::strtoull(part.c_str(), &end, 0);
        if (!std::isdigit(static_cast<unsigned char>(part[0])) || *end || errno || n > 0xFFFFFFFFull)
            return std::nullopt;
        *value = uint32_t(n);
    }
    return range;
}

ppe::Result<std::vector<ElfFunction>> namedFunctions(const CounterRequest& r);

// --range: LO-HI, or the bytes of a function of --elf's symbol table at the load bias the target shows.
ppe::Result<PcRange> rangeOf(Attachment& a, const CounterRequest& r)
{
    if (std::optional<PcRange> numbers = addressRange(r.range)) {
        if (numbers->high < numbers->low)
            return ppe::Error { "", 0, "--range " + r.range + ": the end is below the start" };
        return *numbers;
    }
    CounterRequest one = r;
    one.functions = r.range;
    ppe::Result<std::vector<ElfFunction>> function = namedFunctions(one);
    if (!function)
        return function.error();
    const ElfFunction& f = function->front();
    if (f.size == 0)
        return ppe::Error { r.elf, 0, "the symbol " + f.name + " has no size: give --range LO-HI" };
    ppe::Result<ElfImage> elf = readElfImage(r.elf);
    ppe::Result<uint64_t> bias = elf ? checkImage(a.session, *elf, a.description.architecture) : elf.error();
    if (!bias)
        return bias.error();
    const uint64_t low = f.address + *bias, high = low + f.size - 1;
    if (high > 0xFFFFFFFFu)
        return ppe::Error { r.elf, 0, f.name + " lies beyond 32-bit addresses: not an ARC program" };
    return PcRange { uint32_t(low), uint32_t(high) };
}

int count(Pct& pct, Attachment& a, const CounterRequest& r, const std::atomic<bool>& stop)
{
    ppe::Result<CountRequest> request = countRequestOf(r);
    if (!request)
        return controlFail(request.error().str());
    if (!r.range.empty()) {
        ppe::Result<PcRange> range = rangeOf(a, r);
        if (!range)
            return controlFail(range.error().str());
        request->range = *range;
        request->profile = r.profile;
    }
    ppe::Result<CountResult> result = countEvents(a.control, pct, *request, &stop);
    if (!result)
        return controlFail(result.error().str());
    std::printf("%-12s %20s\n", "event", "count");
    for (const EventCount& e : result->counts)
        std::printf("%-12s %20llu\n", e.event.c_str(), static_cast<unsigned long long>(e.count));
    std::printf("ran %.3f s; ended: %s\n", result->seconds, result->end.c_str());
    if (request->range)
        std::printf("counted only at PCs 0x%x-0x%x (%s): bit %u of %s, from the core profile of %s, read back set\n",
            request->range->low, request->range->high, r.range.c_str(), r.profile->rangeBit,
            std::string(auxName(r.profile->rangeRegister).value_or("the register")).c_str(), r.profile->core.c_str());
    return 0;
}

// The functions --function names, from the ELF's symbol table.
ppe::Result<std::vector<ElfFunction>> namedFunctions(const CounterRequest& r)
{
    ppe::Result<std::vector<ElfFunction>> all = readElfFunctions(r.elf);
    if (!all)
        return all.error();
    std::vector<ElfFunction> chosen;
    for (const std::string& name : splitEvents(r.functions)) {
        auto found = std::find_if(all->begin(), all->end(), [&](const ElfFunction& f) { return f.name == name; });
        if (found == all->end())
            return ppe::Error { r.elf, 0, "no function " + name + " in its symbol table" };
        chosen.push_back(*found);
    }
    return chosen;
}

void printCalls(const CallCountResult& result, bool counted)
{
    std::printf("%-24s %12s %12s %10s %6s%s\n", "function", "calls", "outermost", "returned", "depth",
        counted ? "            inclusive" : "");
    for (const FunctionCalls& f : result.functions) {
        std::printf("%-24s %12llu %12llu %10llu %6u", f.name.c_str(), static_cast<unsigned long long>(f.calls),
            static_cast<unsigned long long>(f.outermost), static_cast<unsigned long long>(f.returns), f.maxDepth);
        if (counted)
            std::printf(" %20llu", static_cast<unsigned long long>(f.inclusive));
        std::printf("\n");
    }
    for (const FunctionCalls& f : result.functions)
        if (counted && f.unfinished)
            std::printf("%s: %llu call(s) still under way at the end, counted up to it\n", f.name.c_str(),
                static_cast<unsigned long long>(f.unfinished));
    std::printf("method: breakpoints (two stops of the core per call; %.3f ms of the run a stop, the program's own "
                "time included)\n",
        result.stops ? result.seconds * 1000 / double(result.stops) : 0.0);
    std::printf("%llu breakpoint stops, %llu program signals passed on; ran %.3f s; ended: %s\n",
        static_cast<unsigned long long>(result.stops), static_cast<unsigned long long>(result.programSignals),
        result.seconds, result.end.c_str());
}

// `calls`: counts by breakpoints; with --event, the first counter counts it between entries and returns.
int calls(Attachment& a, const CounterRequest& r, std::unique_ptr<AuxRegisters>& aux, const std::atomic<bool>& stop)
{
    if (r.method == "inject")
        return injectCalls(a, { r.elf, r.functions, r.scratch, r.durationSeconds, r.depth, r.events, aux.get() }, stop);
    ppe::Result<std::vector<ElfFunction>> functions = namedFunctions(r);
    if (!functions)
        return controlFail(functions.error().str());
    ppe::Result<ElfImage> elf = readElfImage(r.elf);
    ppe::Result<uint64_t> bias = elf ? checkImage(a.session, *elf, a.description.architecture) : elf.error();
    if (!bias)
        return controlFail(bias.error().str());
    // QEMU's user-mode stub stops only the thread that hit a breakpoint: the others run on, past
    // breakpoints that are out while one thread is stepped over its own, and their stops come mixed
    // with its replies (measured: wrong depths, lost calls, garbled replies). Checked before anything
    // changes; a server that cannot say, or a file unreadable here, is counted as it is.
    ppe::Result<QemuStub> qemu = probeQemu(a.session);
    ppe::Result<bool> threads = elfImports(r.elf, "pthread_create");
    if (qemu && qemu->user && threads && *threads)
        return controlFail(r.elf
            + " can start threads (it calls pthread_create), and QEMU's user-mode stub does not stop the other "
              "threads when one stops at a breakpoint: their counts would be wrong; count it under gdbserver");
    CallCountOptions options;
    options.bias = *bias;
    options.duration = std::chrono::milliseconds(int64_t(r.durationSeconds * 1000));
    std::optional<Pct> pct;
    if (!r.events.empty()) {
        ppe::Result<Pct> opened = prepareCounter(aux.get(), r.events, true);
        if (!opened)
            return controlFail(opened.error().str());
        pct.emplace(std::move(*opened));
        options.counter = [&pct] { return pct->read(0); };
    }
    ppe::Result<CallCountResult> result
        = countCalls(a.control, a.access, a.description.architecture, *functions, options, &stop);
    if (!result)
        return controlFail(result.error().str());
    printCalls(*result, pct.has_value());
    return 0;
}

// The aux registers of the attached target, the probe's report on standard error: back end 3 only
// with --aux-stub (a SYMBOL of the --elf, at its load bias, or ADDR:SIZE).
ppe::Result<std::unique_ptr<AuxRegisters>> auxRegisters(Attachment& a, const CounterRequest& r)
{
    AuxStubArea stub;
    if (!r.auxStub.empty()) {
        uint64_t bias = 0; // for a SYMBOL of either
        if (r.auxStub.find(':') == std::string::npos
            || (!r.scratch.empty() && r.scratch.find(':') == std::string::npos)) {
            ppe::Result<ElfImage> elf = readElfImage(r.elf);
            ppe::Result<uint64_t> checked = elf ? checkImage(a.session, *elf, a.description.architecture) : elf.error();
            if (!checked)
                return checked.error();
            bias = *checked;
        }
        ppe::Result<std::pair<uint32_t, uint32_t>> region = memoryRegion("--aux-stub", r.auxStub, r.elf, bias);
        if (!region)
            return region.error();
        if (region->second < kAuxStubBytes) // a symbol's size (ADDR:SIZE is checked before attaching)
            return ppe::Error { "", 0,
                "--aux-stub " + r.auxStub + ": the stub takes " + std::to_string(kAuxStubBytes) + " bytes" };
        if (ppe::Result<std::pair<uint32_t, uint32_t>> scratch = r.scratch.empty()
                ? ppe::Result<std::pair<uint32_t, uint32_t>>(std::pair<uint32_t, uint32_t> {})
                : memoryRegion("--scratch", r.scratch, r.elf, bias);
            scratch && scratch->second && region->first < scratch->first + scratch->second
            && scratch->first < region->first + kAuxStubBytes)
            return ppe::Error { "", 0,
                "--aux-stub " + r.auxStub + " lies in --scratch " + r.scratch
                    + ": the trampolines would overwrite the stub; give each its own memory" };
        stub = { &a.control, region->first };
    }
    AuxProbe probe = probeAuxRegisters(a.access, aux::kPctBuild, stub);
    std::fprintf(stderr, "%s", probe.report.c_str());
    return std::move(probe.registers);
}

// One batch of the descent: one run of the program (through a server of its own with --spawn), with
// breakpoints on `batch` and the first counter counting --event; the total is that counter at the
// end, so the target must halt there (a bare-metal program's end) or run a --duration.
ppe::Result<BatchCounts> measureBatch(const CounterRequest& r, const std::vector<ElfFunction>& functions,
    const std::vector<uint32_t>& batch, const std::atomic<bool>& stop)
{
    SpawnedServer server;
    if (!r.spawn.empty()) {
        ppe::Result<pid_t> spawned = spawnServer(r.spawn);
        if (!spawned)
            return spawned.error();
        server.pid = *spawned;
    }
    auto attached = attach(r.remote, r.journal, false, server.pid);
    if (!attached)
        return attached.error();
    Attachment& a = **attached;
    ppe::Result<std::unique_ptr<AuxRegisters>> aux = auxRegisters(a, r);
    ppe::Result<Pct> pct = aux ? prepareCounter(aux->get(), r.events, true) : ppe::Result<Pct>(aux.error());
    std::vector<ElfFunction> chosen;
    for (uint32_t f : batch)
        chosen.push_back(functions[f]);
    CallCountOptions options;
    options.duration = std::chrono::milliseconds(int64_t(r.durationSeconds * 1000));
    if (pct)
        options.counter = [&pct] { return pct->read(0); };
    ppe::Result<CallCountResult> calls = pct
        ? countCalls(a.control, a.access, a.description.architecture, chosen, options, &stop)
        : ppe::Result<CallCountResult>(pct.error());
    ppe::Result<uint64_t> total = calls ? pct->read(0) : ppe::Result<uint64_t>(calls.error());
    if (closeAttachment(a, "", "descend", 0) != 0)
        return ppe::Error { "", 0, "the run's changes could not be undone (above)" };
    if (!total)
        return total.error();
    BatchCounts counts { *total, {} };
    for (const FunctionCalls& f : calls->functions)
        counts.inclusive.push_back(f.inclusive);
    return counts;
}

// `descend`: the call-graph descent (descent.h) over the graph of --graph or of the --elf's code.
int descend(const CounterRequest& r, const std::atomic<bool>& stop)
{
    ppe::Result<std::vector<ElfFunction>> functions = graphFunctions(r.elf);
    if (!functions)
        return controlFail(functions.error().str());
    ppe::Result<CallGraph> graph = r.graph.empty() ? staticCallGraph(r.elf) : [&]() -> ppe::Result<CallGraph> {
        std::ifstream in(r.graph);
        if (!in)
            return ppe::Error { r.graph, 0, "cannot open" };
        return readCallGraph(in, r.graph);
    }();
    if (!graph)
        return controlFail(graph.error().str());
    std::map<std::string, size_t> byName;
    for (size_t i = 0; i < functions->size(); ++i)
        byName[(*functions)[i].name] = i;
    std::vector<ElfFunction> nodes; // the graph's functions, in its order
    for (const std::string& name : graph->names) {
        auto found = byName.find(name);
        if (found == byName.end())
            return controlFail(r.graph + ": no function " + name + " in " + r.elf);
        nodes.push_back((*functions)[found->second]);
    }
    const DescentOptions options { 0, r.threshold / 100, r.batch };
    unsigned runs = 0;
    ppe::Result<DescentResult> result
        = ppe::arc::descend(*graph, options, [&](const std::vector<uint32_t>& batch) -> ppe::Result<BatchCounts> {
              if (runs++ && r.spawn.empty()) // the server at --remote ran the program once
                  return ppe::Error { "", 0,
                      "a second batch needs a second run of the program: give --spawn CMD (a server started "
                      "anew for each batch), or a --batch as large as the graph" };
              return measureBatch(r, nodes, batch, stop);
          });
    if (!result)
        return controlFail(result.error().str());
    std::printf("%s", descentTable(*graph, *result).c_str());
    std::printf("%u runs instead of %u; threshold %llu %s (%.3g %%)\n", result->batches, result->batchesWithoutPruning,
        static_cast<unsigned long long>(result->threshold), r.events.c_str(), r.threshold);
    if (!r.dot.empty()) {
        const std::string dot = descentDot(*graph, *result);
        const char* refusal = nullptr;
        if (const int error
            = ppe::writeOutputFile(r.dot.c_str(), dot.data(), dot.size(), ppe::OutputName::Given, &refusal))
            return controlFail(
                r.dot + ": cannot write: " + std::strerror(error) + (refusal ? ": " : "") + (refusal ? refusal : ""));
    }
    return 0;
}

int run(const std::string& command, const CounterRequest& r, const std::atomic<bool>& stop)
{
    if (command == "descend")
        return descend(r, stop);
    auto attached = attach(r.remote, r.journal, !r.transcript.empty());
    if (!attached)
        return controlFail(attached.error().str());
    Attachment& a = **attached;
    std::unique_ptr<AuxRegisters> aux;
    int status = 0;
    if (command != "calls" || !r.events.empty()) { // calls alone need no counter
        ppe::Result<std::unique_ptr<AuxRegisters>> probed = auxRegisters(a, r);
        if (!probed)
            return closeAttachment(a, r.transcript, command.c_str(), controlFail(probed.error().str()));
        aux = std::move(*probed);
    }
    if (command == "calls") {
        status = calls(a, r, aux, stop);
    } else if (!aux) {
        status = controlFail("no way to the aux registers of this target (above: what was tried)");
    } else if (ppe::Result<Pct> pct = Pct::open(*aux); !pct) {
        status = controlFail(pct.error().str());
    } else if (command == "conditions") {
        printConditions(*pct);
    } else {
        status = count(*pct, a, r, stop);
    }
    return closeAttachment(a, r.transcript, command.c_str(), status);
}

// What is wrong with the command line before anything is attached to, or "".
std::string checkRequest(const std::string& command, const CounterRequest& r)
{
    if (r.remote.empty())
        return command + " needs --remote HOST:PORT";
    if (command == "count" && r.events.empty())
        return "count needs --event NAME,... (ppe-arc conditions lists them)";
    if (command == "descend" && (r.elf.empty() || r.events.empty() || r.events.find(',') != std::string::npos))
        return "descend needs --elf PROG and one --event NAME";
    if (command == "descend" && !(r.threshold > 0 && r.threshold <= 100))
        return "--threshold: a percentage above 0 and at most 100";
    if (command == "calls" && (r.elf.empty() || r.functions.empty()))
        return "calls needs --elf PROG and --function NAME,...";
    if (command == "calls" && r.method != "breakpoint" && r.method != "inject")
        return "--method " + r.method + ": not breakpoint or inject";
    if (command == "calls" && r.method == "inject" && r.scratch.empty())
        return "--method inject needs a scratch region the program can write and run, for the trampolines: "
               "--scratch SYMBOL or ADDR:SIZE (without one, count by breakpoints: --method breakpoint)";
    if (!r.scratch.empty() && r.method != "inject")
        return "--scratch is --method inject's option";
    if (command == "calls" && r.method == "inject" && !r.events.empty() && r.functions.find(',') != std::string::npos)
        return "--method inject counts an --event for one --function: its trampoline starts the counters at its "
               "outermost entry and stops them at its return, and two would stop each other's";
    if (command == "calls" && r.method == "inject" && (r.depth == 0 || r.depth > 65536))
        return "--depth: from 1 to 65536 saved returns";
    if (command == "calls" && r.events.find(',') != std::string::npos)
        return "calls counts one --event at a time";
    if (!r.auxStub.empty() && command == "calls" && r.events.empty())
        return "--aux-stub reaches the counters: calls needs it only with --event";
    if (!r.auxStub.empty() && r.auxStub.find(':') == std::string::npos && r.elf.empty())
        return "--aux-stub " + r.auxStub + ": a SYMBOL needs --elf PROG (or give ADDR:SIZE)";
    if (!r.auxStub.empty() && r.auxStub.find(':') != std::string::npos) {
        ppe::Result<std::pair<uint32_t, uint32_t>> region = memoryRegion("--aux-stub", r.auxStub, "", 0);
        if (!region)
            return region.error().message;
        if (region->second < kAuxStubBytes)
            return "--aux-stub " + r.auxStub + ": the stub takes " + std::to_string(kAuxStubBytes) + " bytes";
    }
    if (!r.range.empty() && command != "count")
        return "--range is count's option";
    if (!r.range.empty() && r.profilePath.empty())
        return "range counting is off: the bit that enables PCT_RANGEL/H is in no public document; give "
               "--core-profile FILE naming it for this core (docs/user-guide.md, \"Range counting\")";
    if (!r.range.empty() && !addressRange(r.range) && r.elf.empty())
        return "--range " + r.range + ": a function needs --elf PROG (or give LO-HI)";
    return "";
}

} // namespace

ppe::Result<Pct> prepareCounter(AuxRegisters* aux, const std::string& event, bool run)
{
    if (!aux)
        return ppe::Error { "", 0, "no way to the aux registers of this target (above: what was tried)" };
    ppe::Result<Pct> pct = Pct::open(*aux);
    if (!pct)
        return pct;
    ppe::Result<std::vector<uint32_t>> condition = conditionsOf(*pct, { event });
    if (!condition)
        return condition.error();
    ppe::gdbremote::Status ready = pct->stop();
    ready = ready ? pct->clear() : ready;
    ready = ready ? pct->configure(0, condition->front()) : ready;
    ready = ready && run ? pct->start() : ready;
    if (!ready)
        return ready.error();
    return pct;
}

int counterMain(int argc, char** argv, const std::atomic<bool>& stop)
{
    CounterRequest r;
    po::options_description options("ppe-arc conditions / count / calls / descend");
    auto add = options.add_options();
    add("remote", po::value(&r.remote)->value_name("HOST:PORT"), "the server's address");
    add("journal", po::value(&r.journal)->value_name("FILE"), "the undo journal (default ppe-arc-HOST_PORT.undo here)");
    add("transcript", po::value(&r.transcript)->value_name("FILE"), "write the session's transcript");
    add("event", po::value(&r.events)->value_name("NAME,..."),
        "the conditions to count, by name (count: one counter each)");
    add("duration", po::value(&r.durationSeconds)->value_name("S"),
        "run this long, then stop (default: until the target halts by itself)");
    add("in", po::value(&r.where)->value_name("WHERE"), "count: both (default), user or kernel mode");
    add("elf", po::value(&r.elf)->value_name("PROG"), "calls, descend: the program's executable (its symbols)");
    add("function", po::value(&r.functions)->value_name("NAME,..."), "calls: the functions whose calls are counted");
    add("method", po::value(&r.method)->value_name("breakpoint|inject"),
        "calls: by breakpoints (any server; two stops per call), or by code injection (writable code; no stop)");
    add("scratch", po::value(&r.scratch)->value_name("SYMBOL|ADDR:SIZE"),
        "calls --method inject: memory the program can write and run, for the trampolines and counters");
    add("aux-stub", po::value(&r.auxStub)->value_name("SYMBOL|ADDR:SIZE"),
        "memory the program can write and run (8 bytes) for an lr/sr stub, where neither the target description "
        "nor the monitor reaches the aux registers (not on Linux: privileged there)");
    add("depth", po::value(&r.depth)->value_name("N"), "calls --method inject: the deepest recursion hooked (64)");
    add("graph", po::value(&r.graph)->value_name("FILE"),
        "descend: the call graph (CALLER -> CALLEE lines); default: the --elf's code");
    add("threshold", po::value(&r.threshold)->value_name("PERCENT"), "descend: the share worth measuring (1)");
    add("batch", po::value(&r.batch)->value_name("N"), "descend: functions with breakpoints in one run (8)");
    add("spawn", po::value(&r.spawn)->value_name("CMD"), "descend: start the server anew for each run (one command)");
    add("range", po::value(&r.range)->value_name("FUNC|LO-HI"),
        "count: only while the PC is in the function (of --elf) or the addresses (needs --core-profile)");
    add("core-profile", po::value(&r.profilePath)->value_name("FILE"),
        "count --range: the core's profile, naming the bit that enables the range (docs/user-guide.md)");
    add("dot", po::value(&r.dot)->value_name("FILE"), "descend: the call graph with the counts, in Graphviz DOT");
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(argc - 1, argv + 1).options(options).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        return controlFail(std::string(e.what()) + " (see ppe-arc --help)");
    }
    const std::string command = argv[1];
    if (const std::string wrong = checkRequest(command, r); !wrong.empty())
        return controlFail(wrong);
    if (!r.profilePath.empty()) {
        ppe::Result<CoreProfile> profile = readCoreProfile(r.profilePath);
        if (!profile)
            return controlFail(profile.error().str());
        r.profile = std::move(*profile);
    }
    return run(command, r, stop);
}
