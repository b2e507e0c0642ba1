// The call-graph descent (descent.h) on synthetic programs whose inclusive counts are known exactly:
// random layered call graphs with heavy-tailed costs and call counts, some calls the graph does not
// show (functions reached indirectly). The descent must never prune a function at or above the
// threshold, every bound it prunes by must hold, and it must save runs. Then the corner cases
// (recursion, cycles, a failing run) and the graph file's errors.
#include "ppe/arc/descent.h"
#include "ppe/arc/elf_image.h"
#include "ppe/arc/static_calls.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <sstream>

using namespace ppe::arc;
using Verdict = FunctionCount::Verdict;

namespace {

// A program: per function its exclusive cost per call and its calls (callee, calls per call),
// including the hidden ones; functions are in levels, so the calls form a DAG and the counts follow.
struct Program {
    std::vector<uint64_t> exclusive;
    struct Call {
        uint32_t callee;
        uint64_t times; // per call of the caller
        bool shown; // false: through a pointer, not in the graph
    };
    std::vector<std::vector<Call>> calls;
    std::vector<bool> hidden; // called (also) through a call the graph does not show
    CallGraph graph;
    std::vector<uint64_t> inclusive; // the truth: over the whole run, per function
};

// Function 0 is main; levels of `width` functions each; every function has a caller above it.
Program randomProgram(uint32_t seed, uint32_t levels, uint32_t width)
{
    std::mt19937_64 random(seed);
    auto uniform
        = [&random](uint64_t lo, uint64_t hi) { return std::uniform_int_distribution<uint64_t>(lo, hi)(random); };
    Program p;
    const uint32_t n = 1 + (levels - 1) * width;
    auto levelOf = [width](uint32_t f) { return f == 0 ? 0 : 1 + (f - 1) / width; };
    p.calls.resize(n);
    p.hidden.resize(n);
    for (uint32_t f = 0; f < n; ++f) {
        // Heavy tail: most functions cost little, a few a lot (a Pareto of shape 1.2).
        const double u = std::uniform_real_distribution<double>(1e-6, 1.0)(random);
        p.exclusive.push_back(uint64_t(10.0 * std::pow(u, -1 / 1.2)));
        p.graph.function("f" + std::to_string(f));
    }
    for (uint32_t f = 1; f < n; ++f) {
        const uint32_t level = levelOf(f);
        const uint32_t firstAbove = level == 1 ? 0 : 1 + (level - 2) * width;
        const uint32_t caller = level == 1 ? 0 : uint32_t(uniform(firstAbove, firstAbove + width - 1));
        p.calls[caller].push_back({ f, uniform(1, 8), true });
        if (uniform(0, 49) == 0) { // reached (also) through a pointer from main
            p.calls[0].push_back({ f, uniform(1, 4), false });
            p.hidden[f] = true;
        }
    }
    for (uint32_t f = 0; f < n; ++f) { // shared helpers: one function in eight calls one more, deeper down
        if (uniform(0, 7) == 0 && levelOf(f) + 1 < levels)
            p.calls[f].push_back({ uint32_t(uniform(1 + levelOf(f) * width, n - 1)), uniform(1, 3), true });
    }
    std::vector<uint64_t> activations(n), perCall(n);
    activations[0] = 1;
    for (uint32_t f = 0; f < n; ++f) { // callers come before callees
        for (const Program::Call& c : p.calls[f])
            activations[c.callee] += activations[f] * c.times;
    }
    for (uint32_t f = n; f-- > 0;) {
        perCall[f] = p.exclusive[f];
        for (const Program::Call& c : p.calls[f])
            perCall[f] += c.times * perCall[c.callee];
    }
    for (uint32_t f = 0; f < n; ++f) {
        p.inclusive.push_back(activations[f] * perCall[f]);
        for (const Program::Call& c : p.calls[f]) {
            if (c.shown)
                p.graph.call(f, c.callee);
        }
        p.graph.indirect[f] = p.hidden[f];
    }
    return p;
}

// A target that counts exactly: each run gives the true counts and the total (main's).
MeasureBatch exactTarget(const Program& p, std::vector<std::vector<uint32_t>>* runs = nullptr)
{
    return [&p, runs](const std::vector<uint32_t>& batch) -> ppe::Result<BatchCounts> {
        if (runs)
            runs->push_back(batch);
        BatchCounts counts { p.inclusive[0], {} };
        for (uint32_t f : batch)
            counts.inclusive.push_back(p.inclusive[f]);
        return counts;
    };
}

TEST(Descent, NeverPrunesAFunctionAtTheThresholdAndSavesRuns)
{
    size_t sums[4] = {};
    for (uint32_t seed = 1; seed <= 20; ++seed) {
        SCOPED_TRACE("seed " + std::to_string(seed));
        const Program p = randomProgram(seed, 8, 125); // 876 functions
        const DescentOptions options { 0, 0.01, 7 }; // 8 counters, one kept on the total
        const ppe::Result<DescentResult> r = descend(p.graph, options, exactTarget(p));
        ASSERT_TRUE(r) << r.error().str();
        EXPECT_EQ(r->threshold, p.inclusive[0] / 100);
        size_t below = 0, pruned = 0;
        for (uint32_t f = 0; f < p.graph.size(); ++f) {
            const FunctionCount& c = r->functions[f];
            ASSERT_NE(c.verdict, Verdict::NotReached) << p.graph.names[f];
            below += p.inclusive[f] < r->threshold;
            if (c.verdict == Verdict::Measured) {
                EXPECT_EQ(c.count, p.inclusive[f]);
                continue;
            }
            ++pruned;
            EXPECT_FALSE(p.hidden[f]) << p.graph.names[f] << " is reached indirectly";
            EXPECT_LE(p.inclusive[f], c.bound) << p.graph.names[f] << ": a bound that does not hold";
            EXPECT_LT(c.bound, r->threshold);
        }
        // Most of what cannot matter is skipped, and the runs fall with it.
        EXPECT_GT(pruned * 2, below) << pruned << " of " << below << " pruned";
        EXPECT_LT(r->batches * 10, r->batchesWithoutPruning * 6) << r->batches << " runs";
        sums[0] += below, sums[1] += pruned, sums[2] += r->batches, sums[3] += r->batchesWithoutPruning;
    }
    std::printf("20 programs of 876 functions, 8 counters: %zu of %zu functions under 1 %% pruned; %zu runs instead "
                "of %zu\n",
        sums[1], sums[0], sums[2], sums[3]);
}

TEST(Descent, WithoutAThresholdEveryFunctionIsMeasuredOnceInBreadthFirstOrder)
{
    const Program p = randomProgram(7, 4, 10);
    std::vector<std::vector<uint32_t>> runs;
    const ppe::Result<DescentResult> r = descend(p.graph, { 1, 0, 3 }, exactTarget(p, &runs));
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(r->batches, r->batchesWithoutPruning);
    std::vector<int> seen(p.graph.size());
    for (const auto& run : runs) {
        EXPECT_LE(run.size(), 3u);
        for (uint32_t f : run)
            ++seen[f];
    }
    EXPECT_EQ(std::count(seen.begin(), seen.end(), 1), long(p.graph.size()));
    EXPECT_EQ(runs.front().front(), 0u) << "main, the root, comes first";
}

CallGraph graphOf(const std::string& text)
{
    std::istringstream in(text);
    ppe::Result<CallGraph> g = readCallGraph(in, "graph.txt");
    EXPECT_TRUE(g) << g.error().str();
    return g ? std::move(g).value() : CallGraph {};
}

// Counts given by name; the total is main's.
MeasureBatch countsByName(const CallGraph& g, std::map<std::string, uint64_t> truth)
{
    return [&g, truth](const std::vector<uint32_t>& batch) -> ppe::Result<BatchCounts> {
        BatchCounts counts { truth.at("main"), {} };
        for (uint32_t f : batch)
            counts.inclusive.push_back(truth.at(g.names[f]));
        return counts;
    };
}

TEST(Descent, RecursionAndCyclesKeepTheBoundSound)
{
    // rec calls itself; ping and pong call each other. A pruned caller's bound prunes its callees.
    const CallGraph g = graphOf("main -> rec\nrec -> rec\nrec -> leaf\nmain -> ping\nping -> pong\npong -> ping\n"
                                "main -> cold\ncold -> colder\n");
    const std::map<std::string, uint64_t> truth { { "main", 1000 }, { "rec", 600 }, { "leaf", 500 }, { "ping", 300 },
        { "pong", 250 }, { "cold", 5 }, { "colder", 4 } };
    const ppe::Result<DescentResult> r = descend(g, { 100, 0, 2 }, countsByName(g, truth));
    ASSERT_TRUE(r) << r.error().str();
    auto verdict = [&](const char* name) { return r->functions[g.index.at(name)].verdict; };
    for (const char* hot : { "main", "rec", "leaf", "ping", "pong" })
        EXPECT_EQ(verdict(hot), Verdict::Measured) << hot;
    EXPECT_EQ(verdict("cold"), Verdict::Measured) << "measured beside ping in main's children's run";
    EXPECT_EQ(verdict("colder"), Verdict::Pruned);
    EXPECT_EQ(r->functions[g.index.at("colder")].bound, 5u);
}

TEST(Descent, AFunctionReachedIndirectlyIsAlwaysMeasured)
{
    const CallGraph g = graphOf("main -> a\nmain -> b\na -> handler\n-> handler\n");
    const ppe::Result<DescentResult> r
        = descend(g, { 100, 0, 1 }, countsByName(g, { { "main", 1000 }, { "a", 1 }, { "b", 1 }, { "handler", 900 } }));
    ASSERT_TRUE(r) << r.error().str();
    EXPECT_EQ(r->functions[g.index.at("handler")].verdict, Verdict::Measured);
    EXPECT_EQ(r->functions[g.index.at("handler")].count, 900u);
}

TEST(Descent, AFailedRunEndsTheDescentWithItsError)
{
    const CallGraph g = graphOf("main -> a\n");
    const ppe::Result<DescentResult> failed
        = descend(g, { 1, 0, 1 }, [](const std::vector<uint32_t>&) -> ppe::Result<BatchCounts> {
              return ppe::Error { "", 0, "the target stopped answering" };
          });
    ASSERT_FALSE(failed);
    EXPECT_EQ(failed.error().message, "the target stopped answering");
    const ppe::Result<DescentResult> shortRun
        = descend(g, { 1, 0, 2 }, [](const std::vector<uint32_t>&) -> ppe::Result<BatchCounts> {
              return BatchCounts { 1, {} };
          });
    ASSERT_FALSE(shortRun);
    EXPECT_EQ(shortRun.error().message, "a run measured 0 functions of 2");
    EXPECT_FALSE(descend(g, { 1, 0, 0 }, exactTarget(Program {})));
}

TEST(Descent, TableAndDotShowTheFiguresAndTheVerdicts)
{
    const CallGraph g = graphOf("main -> hot\nmain -> \"odd\\name\"\n\"odd\\name\" -> deep\n");
    const ppe::Result<DescentResult> r = descend(
        g, { 100, 0, 1 }, countsByName(g, { { "main", 1000 }, { "hot", 990 }, { "\"odd\\name\"", 9 }, { "deep", 8 } }));
    ASSERT_TRUE(r) << r.error().str();
    const std::string table = descentTable(g, *r);
    EXPECT_NE(table.find("                1000   100.00  measured   main\n"), std::string::npos) << table;
    EXPECT_NE(table.find("                 990    99.00  measured   hot\n"), std::string::npos) << table;
    EXPECT_NE(table.find("                 < 9           pruned     deep\n"), std::string::npos) << table;
    const std::string dot = descentDot(g, *r);
    EXPECT_NE(dot.find("[label=\"\\\"odd\\\\name\\\"\\n9 (0.90 %)\"];"), std::string::npos) << dot;
    EXPECT_NE(dot.find("[label=\"deep\\n< 9 (pruned)\", style=dashed];"), std::string::npos) << dot;
    EXPECT_NE(dot.find("f0 -> f1;"), std::string::npos) << dot;
}

TEST(CallGraphFile, BadLinesNameTheFileAndLine)
{
    for (const char* bad : { "main -> \n", "main -> a -> b\n", "  -> \n" }) {
        std::istringstream in(std::string("# a comment\nmain\n") + bad);
        const ppe::Result<CallGraph> g = readCallGraph(in, "calls.txt");
        ASSERT_FALSE(g) << bad;
        EXPECT_EQ(g.error().str(), "calls.txt:3: expected CALLER -> CALLEE, NAME or -> NAME") << bad;
    }
    std::istringstream empty("# nothing\n\n");
    const ppe::Result<CallGraph> none = readCallGraph(empty, "calls.txt");
    ASSERT_FALSE(none);
    EXPECT_EQ(none.error().str(), "calls.txt: no functions in the call graph");
    std::istringstream longLine("main -> " + std::string(70000, 'x') + "\n");
    EXPECT_FALSE(readCallGraph(longLine, "calls.txt"));
}

} // namespace

// The static graph of real ARC code (static_calls.h) has every direct call objdump shows: each
// `bl`/`bl_s`/`jl` line whose site and target are inside functions of the symbol table is an edge
// between those functions (by address: objdump names code of a stripped library after the nearest
// exported symbol before it).
TEST(StaticCallGraph, HasEveryDirectCallObjdumpShows)
{
    if (std::string(PPE_LOOP_ARC).empty() || std::string(PPE_ARC_OBJDUMP).empty())
        GTEST_SKIP() << "arc-linux-gnu-gcc-12 or arc-linux-gnu-objdump is not installed (Debian: gcc-12-arc-linux-gnu)";
    for (const std::string& elf : { std::string(PPE_LOOP_ARC), std::string(PPE_ARC_LIBC) }) {
        SCOPED_TRACE(elf);
        StaticGraphStats stats;
        ppe::Result<CallGraph> g = staticCallGraph(elf, &stats);
        ppe::Result<std::vector<ElfFunction>> functions = graphFunctions(elf); // in the graph's order
        ASSERT_TRUE(g && functions);
        ASSERT_EQ(functions->size(), g->size());
        auto indexOf = [&](uint64_t address) -> long {
            auto after = std::upper_bound(functions->begin(), functions->end(), address,
                [](uint64_t a, const ElfFunction& f) { return a < f.address; });
            if (after == functions->begin() || address - std::prev(after)->address >= std::prev(after)->size)
                return -1;
            return long(std::prev(after) - functions->begin());
        };
        FILE* pipe = ::popen((std::string(PPE_ARC_OBJDUMP) + " -d --no-show-raw-insn " + elf).c_str(), "r");
        ASSERT_NE(pipe, nullptr);
        char line[1024];
        size_t checked = 0, missing = 0;
        const std::regex call("^ *([0-9a-f]+):\\t(bl|bl_s|jl|jl_s)(\\.d)?\\s+\\S+\\s*;([0-9a-f]+) <");
        std::cmatch m;
        while (std::fgets(line, sizeof(line), pipe)) {
            if (!std::regex_search(line, m, call))
                continue;
            const long from = indexOf(std::stoull(m[1], nullptr, 16)), to = indexOf(std::stoull(m[4], nullptr, 16));
            if (from < 0 || to < 0)
                continue;
            ++checked;
            const auto& callees = g->callees[size_t(from)];
            if (std::find(callees.begin(), callees.end(), uint32_t(to)) == callees.end() && ++missing < 10)
                ADD_FAILURE() << "the call at " << m[1] << " (" << g->names[size_t(from)] << " -> "
                              << g->names[size_t(to)] << ") is missing";
        }
        ::pclose(pipe);
        EXPECT_GT(checked, 0u);
        EXPECT_EQ(missing, 0u) << missing << " of " << checked << " calls missing";
        EXPECT_EQ(stats.undecoded, 0u) << "functions the decoder stopped in";
        if (elf == PPE_ARC_LIBC) { // other objects call what a library exports: no bound holds for them
            EXPECT_EQ(std::count(g->indirect.begin(), g->indirect.end(), true), long(g->size()));
        }
        std::printf("%s: %zu functions, %zu instructions, %zu direct calls (%zu checked against objdump), %zu "
                    "indirect, %zu functions address-taken\n",
            elf.c_str(), stats.functions, stats.instructions, stats.calls, checked, stats.indirectCalls,
            stats.addressTaken);
    }
    EXPECT_FALSE(staticCallGraph(PPE_LOOP_NATIVE)) << "x86-64 code is not ARC code";
}
