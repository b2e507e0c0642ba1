// The call-graph descent (thesis §3.5 and §4.3.4): inclusive counts of a program's functions
// measured a batch at a time, as many functions as the target has free counters, skipping the
// functions that provably cannot reach the threshold.
//
// The bound: every event counted in a function f happens inside the activation of one of its
// callers, so M(f) <= sum of M(p) over its callers p (M: inclusive count; a call of f to itself
// does not count, its outermost activation was entered from another caller). A caller that was
// pruned contributes the bound it was pruned by, which is itself an upper bound of its count, so
// pruning goes down whole subtrees. The bound holds for inclusive counts only (an exclusive count
// or a ratio such as misses per cycle has no such rule), and only for callers the graph shows: a
// function reached indirectly (an address taken, an unknown caller) is always measured, and so is
// one whose callers are not all known yet when its turn comes (they are in the same batch).
//
// Functions are taken breadth first from the roots (functions nothing calls, and those reached
// indirectly), so that by a function's turn its callers have usually been measured.
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace ppe::arc {

// Functions by index; edges caller -> callee.
struct CallGraph {
    std::vector<std::string> names;
    std::vector<std::vector<uint32_t>> callees; // per function, without repeats
    std::vector<std::vector<uint32_t>> callers; // the reverse of callees
    std::vector<bool> indirect; // reached in a way the graph does not show
    std::unordered_map<std::string, uint32_t> index; // names -> indices
    std::unordered_set<uint64_t> edges; // caller << 32 | callee, each once

    // The index of `name`, added if new.
    uint32_t function(const std::string& name);
    // Adds the call (once).
    void call(uint32_t caller, uint32_t callee);
    size_t size() const { return names.size(); }
};

// Reads a call graph from text: one "CALLER -> CALLEE" per line, "NAME" alone declares a function,
// "-> NAME" marks NAME as reached indirectly; '#' starts a comment. Errors name `file` and the line.
Result<CallGraph> readCallGraph(std::istream& in, const std::string& file);

struct DescentOptions {
    uint64_t threshold = 0; // an inclusive count; 0: `share` of the total instead
    double share = 0.01; // with threshold 0: the share of the first run's total count
    uint32_t batchSize = 1; // functions measured in one run: the free counters
};

// One run: the inclusive counts of `functions` (same order) and the program's total count.
struct BatchCounts {
    uint64_t total = 0;
    std::vector<uint64_t> inclusive;
};
using MeasureBatch = std::function<Result<BatchCounts>(const std::vector<uint32_t>& functions)>;

struct FunctionCount {
    enum class Verdict { NotReached, Measured, Pruned } verdict = Verdict::NotReached;
    uint64_t count = 0; // Measured: its inclusive count
    uint64_t bound = 0; // Pruned: the bound it was pruned by (its count is at most this)
    uint64_t runTotal = 0; // Measured: the total count of the run that measured it
};

struct DescentResult {
    std::vector<FunctionCount> functions; // by function index
    uint64_t threshold = 0; // the threshold as a count
    uint64_t total = 0; // the first run's total count
    uint32_t batches = 0; // runs made
    uint32_t batchesWithoutPruning = 0; // runs measuring every function would have made
};

// Measures the graph's functions batch by batch through `measure`, pruning by the bound.
Result<DescentResult> descend(const CallGraph& graph, const DescentOptions& options, const MeasureBatch& measure);

// A table, hottest first: function, inclusive count, % of its run's total, measured or pruned.
std::string descentTable(const CallGraph& graph, const DescentResult& result);

// The graph in Graphviz DOT with the same figures; pruned functions dashed.
std::string descentDot(const CallGraph& graph, const DescentResult& result);

} // namespace ppe::arc
