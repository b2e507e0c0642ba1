// The report model: everything a renderer draws, computed once (make_report.h) from a profile
// and its address sources (a linker map with compiler listings, or DWARF). Every number a
// renderer prints is here; renderers (renderers.h: text, JSON, CSV, callgrind, HTML) only format it.
#pragma once

#include "ppe/profile/profile.h"
#include "ppe/support/result.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ppe::formatter {

// A contiguous piece of a module's code, in link-time addresses.
struct AddressSpan {
    uint64_t start;
    uint64_t end; // exclusive
};

// The code of one source line: an address span to a file and line. A LineTable's spans come from a
// compiler listing placed by the linker map (address_sources.h) or from DWARF (debug_sources.h);
// one table may serve several modules (the functions of one -ffunction-sections object).
struct LineSpan {
    uint64_t start;
    uint64_t end; // exclusive
    int file; // index into LineTable::files
    int line;
    int inlinedInto = -1; // index into LineTable::functions: the code is inlined into that function
};

struct LineTable {
    std::string origin; // what the lines come from, for the report: "listing simp.lis"
    std::vector<std::string> files; // index 0 is the module's own source file
    std::vector<LineSpan> ranges; // sorted by start, non-overlapping
    // The program text of each file (text[f][i] is line i + 1), read (source_text.h) for the
    // modules that get a line analysis; empty when no text was found.
    std::vector<std::vector<std::string>> text;
    std::vector<std::string> textPaths; // where each file's text was read from ("" = none)
    std::vector<std::string> functions; // names LineRange::inlinedInto refers to
};

// A compilation unit (or, with -ffunction-sections maps or symbols, a function) that owns code.
struct CodeModule {
    std::string name;
    std::vector<AddressSpan> ranges; // sorted, non-overlapping
    int lineTable = -1; // index into the module's line tables, -1 when none
    // A compilation unit lists its whole source file; a function only its own lines.
    bool wholeFile = true;
    // A function's compilation unit (its name as the unit modules have it), "" when none is known:
    // `ppeout --diff` tells same-named static functions of two units apart by it.
    std::string unit = {};
    uint64_t address() const { return ranges.empty() ? 0 : ranges.front().start; }
    uint64_t size() const
    {
        uint64_t bytes = 0;
        for (const AddressSpan& r : ranges)
            bytes += r.end - r.start;
        return bytes;
    }
};

// What a module is: a compile unit, a function, or a source file (each function credited to the
// file it was written in: what a unit is without link-time optimisation, and what it still means
// with it, where gcc's units are link-time partitions named "<artificial>"). Auto: units, or files
// where the units are such partitions (debug_sources.h, chooseModuleKind).
enum class ModuleKind { Unit, Function, File, Auto };

// "unit", "function", "file" (the --by values), "auto".
inline const char* moduleKindName(ModuleKind kind)
{
    return kind == ModuleKind::Function ? "function"
        : kind == ModuleKind::File      ? "file"
        : kind == ModuleKind::Auto      ? "auto"
                                        : "unit";
}

// Hits and their share of a count, with PPE's binomial error.
struct Share {
    double hits = 0;
    double percent = 0;
    double error = 0; // binomial standard error, percent
};

// The header's numbers that a renderer would otherwise work out from the profile.
struct Totals {
    uint64_t system = 0; // samples in shared objects and the vDSO (PPE's system time)
    uint64_t other = 0; // anonymous code, unknown places and lost samples
    uint64_t overflow = 0; // above the address range
    uint64_t underflow = 0; // below it
    // Where the samples fell, % of all samples: the executable (in range, above, below), shared
    // objects and the vDSO, the rest. Not the CPU time split, which getrusage gives below.
    double programPercent = 0;
    double librariesPercent = 0;
    double otherPercent = 0;
    // The process's CPU time as getrusage measured it at the end (or the checkpoint).
    double cpuSeconds = 0; // user + system
    double cpuUserPercent = 0; // % of cpuSeconds
    double cpuSystemPercent = 0;
    double collectorCpuSeconds = 0; // the collector thread's own, part of cpuSeconds; 0: not known
    double unsampledKernelSeconds = 0; // system time the mechanism takes no samples of (perf-task-clock)
    // The time the mechanism samples while sampling (the active time; for the perf mechanisms its
    // user part) and the achieved rate over it: what to hold against the requested rate.
    double sampledSeconds = 0;
    double sampledRate = 0; // Hz
    bool userTimeOnly = false; // sampledSeconds is user time only (the perf mechanisms, CPU time known)
    double intervalMs = 0; // the sample interval
    // The CPU-time mechanisms' samples against what the process's CPU time should have given at the
    // requested rate (user time only for the perf mechanisms, which exclude the kernel): 0 when not
    // worked out (a real-time timer, a remote sampler, too little CPU time to tell).
    double expectedSamples = 0;
    double sampledPercent = 0; // of expectedSamples
    std::string missingSamples; // below 80 %: that said in words, with the likely reason; else ""
    uint64_t lastAddress = 0; // of the range, inclusive
    uint64_t rangeBytes = 0;
};

struct ModuleRow {
    size_t module = 0; // index into the modules the report was built from
    std::string name;
    double hits = 0; // fractional when bins straddling modules were split
    double percent = 0; // of in-range hits
    // The binomial standard error, percent; for a row with split hits, widened by their
    // uncertainty (splitErrorPercent, build_report.h).
    double error = 0;
    double accumulated = 0; // percent of this and all rows above
    uint64_t address = 0; // the lowest address of its code
    uint64_t size = 0; // bytes of code, all its ranges
    double percentOfAll = 0; // of all samples (Total count), to compare with perf's shares
    double splitHits = 0; // hits from bins split between it and other modules (by bytes)
    size_t ranges = 1; // address ranges of its code: more than 1 when others' code lies between
    bool function = false; // a function (CodeModule::wholeFile false), not a compilation unit
    std::string unit = {}; // a function's compilation unit, "" when unknown (CodeModule::unit)
    // Its own source file as its line table names it (DWARF, a listing), with the compilation
    // directory before a relative name; "" when it has no line table.
    std::string file = {};
    // A function's time with its callees, from the call paths (ppe -g): percent of the samples with
    // a path and its binomial error; below 0 when the profile has none (or a unit, not a function).
    double inclusivePercent = -1;
    double inclusiveError = 0;
};

// One machine instruction of a line's code, with its hits (--asm).
struct InstructionRow {
    uint64_t address = 0; // link-time
    std::string text; // the disassembly, or the listing's code text
    double hits = 0;
};

// One line of a module's program text in the line analysis.
struct LineRow {
    int line = 0;
    std::string text;
    double hits = 0; // fractional when a bin straddled two lines
    double accumulated = 0; // percent of the module's hits from its first printed line to this one
    bool code = false; // the line has code in this module
    double splitHits = 0; // of `hits`, from bins split between this line and other lines or modules
    std::vector<InstructionRow> instructions; // with --asm: the line's code, ascending addresses
};

// The lines of one source file within a module's analysis: the module's own file first, then
// each other file (headers, inlined code) with the lines that took hits.
struct FileLines {
    std::string name;
    std::string textPath; // "" when the text is the listing's copy, or unknown
    bool own = false; // the module's own source file (LineTable::files[0])
    std::vector<LineRow> rows;
    std::vector<std::string> inlinedInto; // functions the rows' code is inlined into (DWARF)
};

struct ModuleLines {
    size_t module = 0; // index into the modules the report was built from
    std::string name;
    std::string origin; // LineTable::origin
    double hits = 0; // the module's hits (== its ModuleRow's)
    double withoutLine = 0; // hits on the module's code that no line owns
    double busiest = 0; // the hits of its busiest line: the bars are scaled to it
    double splitHits = 0; // hits of its lines from bins split between lines or modules
    std::vector<FileLines> files;
    // The file of the module's lowest address that has a line (a function's entry: its own file
    // even where DWARF's unit names it otherwise), as FileLines::name; "" when no code has a line.
    std::string entryFile = {};
};

// A function inside a shared object, with its share of all samples.
struct FunctionRow {
    std::string name;
    double hits = 0;
    double percent = 0; // of all samples (Total count)
    double error = 0;
    uint64_t address = 0; // link-time address in its object
    uint64_t size = 0;
};

// One address of a shared object's code that no function owns, with its share of all samples.
struct AddressRow {
    uint64_t address = 0; // link-time address in its object; the file offset when !mapped
    bool mapped = true; // false: the offset lies in no executable segment of the file
    double hits = 0;
    double percent = 0; // of all samples (Total count)
    double error = 0;
};

// A shared object that took samples, and the functions in it that took the most.
struct ObjectRow {
    std::string path;
    std::string name; // the file's base name
    std::string buildId;
    double hits = 0;
    double percent = 0; // of all samples (Total count)
    double error = 0;
    std::vector<FunctionRow> functions; // decreasing hits, at most the asked number
    size_t moreFunctions = 0; // functions with hits left out of `functions`
    double moreFunctionsHits = 0; // their hits: `functions`, these and withoutFunction make `hits`
    Share withoutFunction; // hits at offsets no known function owns, % of all samples
    std::string note; // why there are no functions ("no such file", "changed since the run: ...")
    // Where no function (symbol, DWARF or .eh_frame entry) owns the code: the busiest addresses
    // (withoutFunction holds them all), decreasing hits, at most the asked number.
    std::vector<AddressRow> hottest;
    size_t moreAddresses = 0; // addresses with hits left out of `hottest`
};

// What the formatter knows of a shared object's code: its functions in link-time addresses and
// where each file offset is loaded.
struct ObjectCode {
    std::vector<CodeModule> functions;
    std::function<std::optional<uint64_t>(uint64_t fileOffset)> addressOfOffset;
    AddressSpan code { 0, 0 }; // its executable segments, link-time [lowest, highest end)
};

// A shared object given the executable's treatment (units or functions, program text) from its
// own DWARF and its samples by file offset: ObjectRow's hits by module and line.
struct ObjectAnalysis {
    std::string path;
    std::string name; // the file's base name
    double hits = 0; // the object's samples (its rows' Time % is of these)
    double percent = 0; // of all samples
    std::vector<ModuleRow> modules; // decreasing hits; All % is of all samples
    Share unattributed; // its hits where none of its modules' code is (PLT, padding)
    std::vector<ModuleLines> lines; // program text of its busy modules, in the order of `modules`
};

// One thread of the process: its samples and, in real-time mode, its blocked time.
struct ThreadRow {
    uint64_t tid = 0; // 0: threads the collector's table had no room for
    std::string name;
    uint64_t samples = 0;
    double percent = 0; // of all samples
    double cpuSeconds = 0; // its CPU time as last read; 0: unknown
    double rate = 0; // samples per CPU second, Hz; 0: unknown
    double blockedSeconds = 0;
    // It took no sample and only waited, never with a call of the program's code on the stack
    // where the profile's waits name their threads: a library's helper thread (MPI progress).
    bool helper = false;
};

// A place where threads waited in the kernel (real-time mode).
struct BlockedRow {
    std::string call; // the system call ("clock_nanosleep", "syscall 512"), or "(not in a system call)"
    std::string site; // the code that made it: "__clock_nanosleep (libc.so.6)"
    std::string caller; // the program's call found on the stack: "wait_in_sleep (io.c:45)"; "" when none
    double seconds = 0; // thread-seconds
    double error = 0; // seconds: seconds / sqrt(observations)
    double percent = 0; // of all thread time (sampled running time + blocked time)
    uint64_t observations = 0;
    uint64_t tid = 0; // the thread that waited; 0: unknown (older profiles, merges, the collector's table full)
    std::string thread {}; // its name, "" when unknown
    double threadSeconds = 0; // all the waits of that thread (tid 0: this row's)
    // The program's own wait: its thread waited at least once with a call of the program's code on
    // the stack (tid 0: this wait had one). Otherwise a thread that never waited in the program's
    // code: a library's helper thread (MPI progress threads).
    bool inProgram = false;
};

// Real time not spent running, by place (real-time mode).
struct BlockedTime {
    double runningSeconds = 0; // the samples' time: the active CPU time (samples x interval for posix-timer)
    double blockedSeconds = 0;
    uint64_t scans = 0;
    double scanPeriod = 0; // mean seconds between scans
    double scanCost = 0; // CPU seconds the scans took
    double programSeconds = 0; // the program's own waits (BlockedRow::inProgram)
    double helperSeconds = 0; // the others: library helper threads
    bool byThread = false; // the rows name their threads (the profile's `blocked` records have a TID)
    // The program's own waits first, then the helper threads'; in each, by thread (most waited
    // first) and, in a thread, by decreasing seconds.
    std::vector<BlockedRow> rows;
};

// Issue 39: the call paths' view of one function (or a marker: a path the unwinder could not follow
// to the program's start), by function name ("name (object)" in a shared object).
struct CallEdge {
    std::string name;
    double samples = 0;
    double percent = 0; // of the function's inclusive samples
};

struct CallFunctionRow {
    std::string name;
    double self = 0; // samples whose path ends in it
    double inclusive = 0; // samples whose path passes through it (recursion counted once)
    double selfPercent = 0, selfError = 0; // of the samples with a path
    double inclusivePercent = 0, inclusiveError = 0;
    std::vector<CallEdge> callers; // whose calls its inclusive samples came through, decreasing
    std::vector<CallEdge> callees; // where its inclusive samples went besides itself, decreasing
    // What the text shows of them: the first few of both, or (--callers, --callees) all of one.
    bool showCallers = true, showCallees = true, allEdges = false;
};

// A call from one function to another: the callee's inclusive samples under that caller
// (recursion counted once), as callgrind's calls= lines give them.
struct CallArc {
    std::string caller, callee;
    double samples = 0;
};

struct CallPathsReport {
    uint64_t samples = 0; // samples with a path
    uint64_t cut = 0; // of those, cut for room in the collector's tree
    uint64_t nodes = 0;
    std::vector<CallFunctionRow> functions; // decreasing inclusive samples, at most the asked number
    size_t moreFunctions = 0;
    std::vector<CallEdge> shortPaths; // why paths stopped short, % of the samples with a path
    std::vector<CallArc> arcs; // every call of the tree, by caller then callee name
};

// One of the top modules of a merge, across its ranks: each rank's share of its own in-range hits.
struct ModuleImbalance {
    std::string name; // the module's name (== its ModuleRow's)
    double hits = 0; // its hits in the merge (== its ModuleRow's)
    double minPercent = 0; // the smallest of the ranks' shares, % of each rank's in-range hits
    double meanPercent = 0;
    double maxPercent = 0;
    // The rank holding maxPercent, the largest share of its own hits (the first one, if several do):
    // a rank with few samples may hold it rather than the one that spent the most time there.
    uint64_t maxRank = 0;
    double variation = 0; // coefficient of variation: standard deviation / mean of the shares; 0 if the mean is 0
};

// One process of a merge: its totals.
struct RankRow {
    uint64_t rank = 0; // its `rank` record, or its position in the merge (Imbalance::ranksFromOrder)
    uint64_t pid = 0;
    std::string file;
    uint64_t samples = 0; // its Total count
    double percent = 0; // of the merge's samples
    double achievedRate = 0; // Hz, over the time its mechanism samples (Totals::sampledRate)
    double cpuSeconds = 0; // user + system
    double userPercent = 0; // of cpuSeconds
    double systemPercent = 0;
    std::string status; // "complete", "recovered", ...
    std::string endReason;
};

// How the work of a merge was spread over its ranks (ppeout on many profiles).
struct Imbalance {
    size_t ranks = 0; // profiles merged
    bool ranksFromOrder = false; // some profile had no rank record: ranks are the files' order from 0
    std::vector<ModuleImbalance> modules; // the top modules of the merge, decreasing hits (at most kImbalanceModules)
    // The ranks: all of them in rank order when there are few (at most kImbalanceRankRows); else the
    // heaviest then the lightest (decreasing samples), with `hiddenRanks` left out between
    // rows[hiddenAfter - 1] and rows[hiddenAfter].
    std::vector<RankRow> rows;
    size_t hiddenRanks = 0;
    size_t hiddenAfter = 0;
    double meanSamples = 0; // per rank
    double samplesVariation = 0; // coefficient of variation of the ranks' samples
};

// `ppeout --diff`: a base profile compared with the report's own, row by row (diff_report.h).
inline constexpr double kDiffAlpha = 0.05; // family-wise error of each table's verdicts

// One side of the comparison: its profile's header numbers.
struct DiffSide {
    std::string path; // the .ppe file
    std::string image;
    std::string buildId;
    std::string host;
    int64_t startTime = 0; // seconds since the epoch, UTC
    std::string mechanism;
    bool cpuTime = true; // CPU-time samples (CPU mode), not real time
    uint64_t total = 0; // all samples
    uint64_t inRange = 0; // the samples in the program's code: the denominator of every share
    double cpuSeconds = 0; // user + system, getrusage
    double intervalMs = 0; // the requested interval
    double achievedRate = 0; // Hz, over the time the mechanism samples (Totals::sampledRate)
    double secondsPerSample = 0; // the time one sample stands for (thread_report.h)
    double sampledSeconds = 0; // inRange x secondsPerSample: the program's own sampled time
};

enum class DiffPresence { Both, OnlyBase, OnlyChanged }; // where the row has hits

// The outcome of one z-test.
struct ZTest {
    double z = 0; // positive: the changed profile's value is larger
    double p = 1; // two-sided
};

struct DiffRow {
    std::string name; // as the changed profile's report names it (the base's when only there)
    std::string unit; // a function's compilation unit, "" for a unit or when unknown
    DiffPresence presence = DiffPresence::Both;
    Share base; // hits, % of base in-range, binomial error
    Share changed;
    double deltaPercent = 0; // changed.percent - base.percent: percentage points of share
    ZTest share; // two-proportion z-test of the shares
    double baseSeconds = 0; // base.hits x base secondsPerSample
    double changedSeconds = 0;
    double deltaSeconds = 0; // changedSeconds - baseSeconds
    double secondsError = 0; // Poisson standard error of deltaSeconds
    ZTest time; // z-test of the times
    double shareP = 1; // share.p adjusted by Holm's method over the table's rows
    double timeP = 1; // time.p adjusted likewise
    bool shareSignificant = false; // shareP <= alpha: the share changed
    bool timeSignificant = false; // timeP <= alpha: the time changed
    bool significant = false; // both changed, in the same direction: the row changed by itself
    std::string movement; // "faster", "slower, less than the rest", "larger share only", "-"...
};

struct DiffTable {
    ModuleKind kind = ModuleKind::Unit;
    // Significant rows first, then decreasing |deltaSeconds|. Includes "(no module)" for in-range
    // hits that fell in no module's code, when either side has some.
    std::vector<DiffRow> rows;
    size_t compared = 0; // rows in the correction's family (all rows)
    size_t significant = 0; // rows whose time and share changed in the same direction
    size_t timeChanged = 0; // rows whose time changed
    size_t shareChanged = 0; // rows whose share changed
};

struct DiffReport {
    DiffSide base, changed;
    double alpha = kDiffAlpha;
    // The program's sampled time, base -> changed, and its Poisson z-test.
    double deltaSeconds = 0;
    double deltaSecondsPercent = 0; // of the base's sampled time
    ZTest time;
    bool timeSignificant = false; // time.p <= alpha (one test)
    // Two profiles of one build (same build id): a change of the program time is run-to-run
    // variation of the machine, which the binomial errors do not cover; no verdict is given on it.
    bool sameBuild = false;
    std::vector<DiffTable> tables; // --by's modules; with --by unit also the functions
    std::vector<std::string> warnings;
};

struct Report {
    Profile profile; // the header fields come straight from it
    Totals totals; // and these are worked out from it
    std::vector<ModuleRow> modules; // decreasing hits; modules without hits are left out
    Share unattributed; // in-range hits that fell in no module (padding, PLT, start-up code)
    bool splitBins = false; // some bins straddled two modules (or two lines) and were split by bytes
    bool cpuTime = true; // the samples measure CPU time (CPU mode), not real time
    // What a module is: a compile unit (or the map's object), a function (--by function), or a
    // source file (--by file, or by default where the units are link-time partitions). Never Auto.
    ModuleKind moduleKind = ModuleKind::Unit;
    std::vector<ModuleLines> lines; // in the order of `modules`
    std::vector<ObjectRow> objects; // shared objects in decreasing hits
    std::vector<ObjectAnalysis> objectAnalyses; // shared objects with their own module table and lines
    std::vector<ThreadRow> threads; // the busiest threads (at most kMaxThreadRows), by thread id
    size_t moreThreads = 0; // threads left out of `threads`
    std::optional<BlockedTime> blocked; // real-time mode: where threads waited
    std::optional<CallPathsReport> calls; // the profile has call paths (PPE_CALLS)
    std::optional<Imbalance> imbalance; // a merge of several profiles: the spread over its ranks
    std::optional<DiffReport> diff; // ppeout --diff: a base profile compared with this one
    std::vector<std::string> warnings;
};

} // namespace ppe::formatter
