#include "ppe/arc/descent.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <istream>
#include <limits>
#include <numeric>
#include <optional>

namespace ppe::arc {

namespace {

    // A graph is held whole in memory: these keep a damaged or hostile file bounded.
    constexpr size_t kMaxFunctions = 1 << 20;
    constexpr size_t kMaxLineBytes = 1 << 16;

    using Verdict = FunctionCount::Verdict;

    std::string trimmed(const std::string& text)
    {
        const size_t first = text.find_first_not_of(" \t\r");
        if (first == std::string::npos)
            return {};
        return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
    }

    // One line of `in` into `line` (without its newline); false at the end. A line longer than
    // kMaxLineBytes stops the reading at kMaxLineBytes + 1 bytes (the caller refuses it): a file
    // without newlines is never read whole into memory.
    bool boundedLine(std::istream& in, std::string& line)
    {
        line.clear();
        bool any = false;
        for (int c; (c = in.get()) != std::char_traits<char>::eof();) {
            any = true;
            if (c == '\n')
                return true;
            line += char(c);
            if (line.size() > kMaxLineBytes)
                return true;
        }
        return any;
    }

    uint64_t saturatingAdd(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

    // Roots first (nothing calls them, or they are reached indirectly), then breadth first; what no
    // root reaches (a cycle nothing else calls) is appended as a root of its own.
    std::vector<uint32_t> breadthFirst(const CallGraph& g)
    {
        std::vector<uint32_t> order;
        std::vector<bool> queued(g.size());
        auto visitFrom = [&](uint32_t root) {
            if (queued[root])
                return;
            queued[root] = true;
            for (size_t head = order.size(), end = (order.push_back(root), order.size()); head < end; ++head) {
                for (uint32_t callee : g.callees[order[head]]) {
                    if (!queued[callee]) {
                        queued[callee] = true;
                        order.push_back(callee);
                    }
                }
                end = order.size();
            }
        };
        for (uint32_t f = 0; f < g.size(); ++f) {
            const bool calledByOthers
                = std::any_of(g.callers[f].begin(), g.callers[f].end(), [f](uint32_t caller) { return caller != f; });
            if (!calledByOthers || g.indirect[f])
                visitFrom(f);
        }
        for (uint32_t f = 0; f < g.size(); ++f)
            visitFrom(f);
        return order;
    }

    // The bound on f's inclusive count from its callers' counts, or none when one of them is not
    // known yet (or f is reached indirectly). Every count is at most the total.
    std::optional<uint64_t> boundOf(
        const CallGraph& g, const std::vector<FunctionCount>& counts, uint32_t f, std::optional<uint64_t> total)
    {
        if (g.indirect[f])
            return std::nullopt;
        uint64_t sum = 0;
        bool anyCaller = false;
        for (uint32_t p : g.callers[f]) {
            if (p == f)
                continue;
            anyCaller = true;
            const FunctionCount& c = counts[p];
            if (c.verdict == Verdict::NotReached)
                return std::nullopt;
            sum = saturatingAdd(sum, c.verdict == Verdict::Measured ? c.count : c.bound);
        }
        if (!anyCaller)
            return total;
        return total ? std::min(sum, *total) : sum;
    }

    // Runs one batch and records its counts; the first run also fixes the total and the threshold.
    Result<bool> measureBatch(const std::vector<uint32_t>& batch, const DescentOptions& options,
        const MeasureBatch& measure, DescentResult& r)
    {
        Result<BatchCounts> counts = measure(batch);
        if (!counts)
            return counts.error();
        if (counts->inclusive.size() != batch.size())
            return Error { "", 0,
                "a run measured " + std::to_string(counts->inclusive.size()) + " functions of "
                    + std::to_string(batch.size()) };
        if (r.batches++ == 0) {
            r.total = counts->total;
            if (!options.threshold)
                r.threshold = uint64_t(options.share * double(counts->total));
        }
        for (size_t i = 0; i < batch.size(); ++i)
            r.functions[batch[i]] = { Verdict::Measured, counts->inclusive[i], 0, counts->total };
        return true;
    }

    std::string percent(uint64_t count, uint64_t total)
    {
        char text[32];
        std::snprintf(text, sizeof(text), "%.2f", total ? 100.0 * double(count) / double(total) : 0.0);
        return text;
    }

    // `text` inside a DOT string: quotes and backslashes escaped, line ends made spaces.
    std::string dotEscaped(const std::string& text)
    {
        std::string out;
        for (char c : text) {
            if (c == '"' || c == '\\')
                out += '\\';
            out += c == '\n' || c == '\r' ? ' ' : c;
        }
        return out;
    }

} // namespace

uint32_t CallGraph::function(const std::string& name)
{
    const auto [found, added] = index.try_emplace(name, uint32_t(names.size()));
    if (!added)
        return found->second;
    names.push_back(name);
    callees.emplace_back();
    callers.emplace_back();
    indirect.push_back(false);
    return uint32_t(names.size() - 1);
}

void CallGraph::call(uint32_t caller, uint32_t callee)
{
    // A set, not a search of `callees`: one caller of a million callees would take 10^12 steps.
    if (!edges.insert(uint64_t(caller) << 32 | callee).second)
        return;
    callees[caller].push_back(callee);
    callers[callee].push_back(caller);
}

Result<CallGraph> readCallGraph(std::istream& in, const std::string& file)
{
    CallGraph g;
    std::string line;
    for (size_t number = 1; boundedLine(in, line); ++number) {
        auto fail = [&](const std::string& message) -> Result<CallGraph> { return Error { file, number, message }; };
        if (line.size() > kMaxLineBytes)
            return fail("a line longer than " + std::to_string(kMaxLineBytes) + " bytes");
        line = trimmed(line.substr(0, line.find('#')));
        if (line.empty())
            continue;
        const size_t arrow = line.find("->");
        const std::string caller = trimmed(line.substr(0, arrow));
        const std::string callee = arrow == std::string::npos ? std::string() : trimmed(line.substr(arrow + 2));
        if (arrow != std::string::npos && (callee.empty() || callee.find("->") != std::string::npos))
            return fail("expected CALLER -> CALLEE, NAME or -> NAME");
        if (g.size() + 2 > kMaxFunctions)
            return fail("more than " + std::to_string(kMaxFunctions) + " functions");
        if (arrow == std::string::npos)
            g.function(caller);
        else if (caller.empty())
            g.indirect[g.function(callee)] = true;
        else {
            const uint32_t from = g.function(caller);
            g.call(from, g.function(callee));
        }
    }
    if (g.size() == 0)
        return Error { file, 0, "no functions in the call graph" };
    return g;
}

Result<DescentResult> descend(const CallGraph& g, const DescentOptions& options, const MeasureBatch& measure)
{
    if (options.batchSize == 0)
        return Error { "", 0, "no free counter to measure functions with" };
    DescentResult r;
    r.functions.resize(g.size());
    r.threshold = options.threshold;
    r.batchesWithoutPruning = uint32_t((g.size() + options.batchSize - 1) / options.batchSize);
    const std::vector<uint32_t> order = breadthFirst(g);
    for (size_t next = 0; next < order.size();) {
        std::vector<uint32_t> batch;
        for (; next < order.size() && batch.size() < options.batchSize; ++next) {
            const uint32_t f = order[next];
            const std::optional<uint64_t> total = r.batches ? std::optional<uint64_t>(r.total) : std::nullopt;
            const std::optional<uint64_t> bound = r.batches ? boundOf(g, r.functions, f, total) : std::nullopt;
            if (bound && *bound < r.threshold)
                r.functions[f] = { Verdict::Pruned, 0, *bound, 0 };
            else
                batch.push_back(f);
        }
        if (batch.empty())
            break;
        if (Result<bool> done = measureBatch(batch, options, measure, r); !done)
            return done.error();
    }
    return r;
}

std::string descentTable(const CallGraph& g, const DescentResult& r)
{
    std::vector<uint32_t> rows(g.size());
    std::iota(rows.begin(), rows.end(), 0u);
    auto key = [&r](uint32_t f) { return r.functions[f].verdict == Verdict::Measured ? r.functions[f].count : 0; };
    std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) { return key(a) > key(b); });
    std::string out = "inclusive count      % total  how        function\n";
    char line[96];
    for (uint32_t f : rows) {
        const FunctionCount& c = r.functions[f];
        if (c.verdict == Verdict::Measured)
            std::snprintf(
                line, sizeof(line), "%20" PRIu64 " %8s  measured   ", c.count, percent(c.count, c.runTotal).c_str());
        else if (c.verdict == Verdict::Pruned)
            std::snprintf(line, sizeof(line), "%19s%" PRIu64 " %8s  pruned     ", "< ", c.bound, "");
        else
            std::snprintf(line, sizeof(line), "%20s %8s  not run    ", "", "");
        out.append(line).append(g.names[f]).append("\n");
    }
    return out;
}

std::string descentDot(const CallGraph& g, const DescentResult& r)
{
    std::string out = "digraph calls {\n  node [shape=box, fontname=\"monospace\"];\n";
    for (uint32_t f = 0; f < g.size(); ++f) {
        const FunctionCount& c = r.functions[f];
        std::string label = dotEscaped(g.names[f]) + "\\n";
        if (c.verdict == Verdict::Measured)
            label += std::to_string(c.count) + " (" + percent(c.count, c.runTotal) + " %)";
        else if (c.verdict == Verdict::Pruned)
            label += "< " + std::to_string(c.bound) + " (pruned)";
        out += "  f" + std::to_string(f) + " [label=\"" + label + "\"";
        out += c.verdict == Verdict::Measured ? "];\n" : ", style=dashed];\n";
    }
    for (uint32_t f = 0; f < g.size(); ++f) {
        for (uint32_t callee : g.callees[f])
            out += "  f" + std::to_string(f) + " -> f" + std::to_string(callee) + ";\n";
    }
    return out + "}\n";
}

} // namespace ppe::arc
