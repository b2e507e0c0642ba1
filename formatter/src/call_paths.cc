#include "ppe/formatter/call_paths.h"

#include "ppe/core/call_tree.h"
#include "ppe/formatter/build_report.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <tuple>
#include <unordered_map>

namespace ppe::formatter {

namespace {

    // The tree with a function per node and its subtree's samples.
    struct Folded {
        std::vector<uint32_t> function; // index into `names`; the root's is unused
        std::vector<double> subtree;
        std::vector<bool> leaf; // no children: its PC is the sampled one
        std::vector<std::string> names;
    };

    Folded fold(const CallPaths& calls, const PlaceNamer& functionOf)
    {
        const size_t n = calls.nodes.size();
        Folded f { std::vector<uint32_t>(n, 0), std::vector<double>(n, 0), std::vector<bool>(n, true), {} };
        for (size_t i = 1; i < n; ++i)
            f.leaf[calls.nodes[i].parent] = false;
        std::unordered_map<std::string, uint32_t> ids;
        // Many nodes share a place (one return address under many paths): each is named once.
        std::map<std::tuple<int, size_t, uint64_t, uint64_t>, uint32_t> named;
        for (size_t i = 1; i < n; ++i) {
            const CallPathNode& node = calls.nodes[i];
            CodeLocation place = node.place;
            if (f.leaf[i]) // a sampled PC, not a return address: the namer names the instruction before
                place.address += 1;
            const auto key = std::tuple(int(place.kind), place.object, place.address, node.marker);
            if (auto known = named.find(key); known != named.end()) {
                f.function[i] = known->second;
                continue;
            }
            std::string name = node.marker ? shortPathName(node.marker) : functionOf(place);
            if (name.empty())
                name = "[unknown]";
            auto [at, added] = ids.try_emplace(name, uint32_t(f.names.size()));
            if (added)
                f.names.push_back(std::move(name));
            f.function[i] = at->second;
            named.emplace(key, at->second);
        }
        for (size_t i = n; i-- > 0;) {
            f.subtree[i] += double(calls.nodes[i].self);
            if (i)
                f.subtree[calls.nodes[i].parent] += f.subtree[i];
        }
        return f;
    }

    // For each node, whether it is the outermost of its function on its path (recursion counted
    // once): a walk of the tree depth first, counting the functions on the path. Linear in the
    // nodes, however deep a (damaged or recursive) tree is.
    std::vector<bool> outermostNodes(const CallPaths& calls, const Folded& f)
    {
        const size_t n = calls.nodes.size();
        std::vector<uint32_t> firstChild(n, 0), nextSibling(n, 0), onPath(f.names.size(), 0);
        for (size_t i = n; i-- > 1;) {
            const uint32_t parent = calls.nodes[i].parent;
            nextSibling[i] = firstChild[parent];
            firstChild[parent] = uint32_t(i);
        }
        std::vector<bool> out(n, true);
        std::vector<std::pair<uint32_t, bool>> stack { { firstChild[0], false } }; // node, leaving
        while (!stack.empty()) {
            auto [i, leaving] = stack.back();
            stack.pop_back();
            if (!i)
                continue;
            if (leaving) {
                --onPath[f.function[i]];
                continue;
            }
            out[i] = onPath[f.function[i]]++ == 0;
            stack.push_back({ nextSibling[i], false });
            stack.push_back({ i, true });
            stack.push_back({ firstChild[i], false });
        }
        return out;
    }

    // For each node, the outermost node of the run of its function it ends (direct recursion: f
    // calling f): its callees are the run's, counted once, unless the function is also further up
    // the path (f calling g calling f: the outer f's callee g holds them already).
    std::vector<uint32_t> runTops(const CallPaths& calls, const Folded& f)
    {
        std::vector<uint32_t> top(calls.nodes.size(), 0);
        for (size_t i = 1; i < calls.nodes.size(); ++i) {
            const uint32_t parent = calls.nodes[i].parent;
            top[i] = parent && f.function[parent] == f.function[i] ? top[parent] : uint32_t(i);
        }
        return top;
    }

    constexpr uint32_t kRoot = UINT32_MAX; // the caller of a path's outermost frame

    struct PathTotals {
        std::vector<double> self, inclusive;
        std::vector<std::map<uint32_t, double>> callers, callees; // by function
    };

    PathTotals total(const CallPaths& calls, const Folded& f)
    {
        const size_t functions = f.names.size();
        PathTotals t { std::vector<double>(functions, 0), std::vector<double>(functions, 0),
            std::vector<std::map<uint32_t, double>>(functions), std::vector<std::map<uint32_t, double>>(functions) };
        const std::vector<bool> outer = outermostNodes(calls, f);
        const std::vector<uint32_t> top = runTops(calls, f);
        for (size_t i = 1; i < calls.nodes.size(); ++i) {
            const uint32_t fn = f.function[i];
            const uint32_t parent = calls.nodes[i].parent;
            t.self[fn] += double(calls.nodes[i].self);
            if (!outer[i])
                continue;
            t.inclusive[fn] += f.subtree[i];
            t.callers[fn][parent ? f.function[parent] : kRoot] += f.subtree[i];
            if (parent && outer[top[parent]])
                t.callees[f.function[parent]][fn] += f.subtree[i];
        }
        return t;
    }

    std::vector<CallEdge> edges(const std::map<uint32_t, double>& by, const Folded& f, double inclusive)
    {
        std::vector<CallEdge> out;
        for (const auto& [fn, samples] : by) {
            out.push_back(CallEdge { fn == kRoot ? "[the path's start]" : f.names[fn], samples,
                inclusive > 0 ? 100.0 * samples / inclusive : 0 });
        }
        std::stable_sort(
            out.begin(), out.end(), [](const CallEdge& a, const CallEdge& b) { return a.samples > b.samples; });
        return out;
    }

    CallFunctionRow rowOf(uint32_t fn, const Folded& f, const PathTotals& t, double n)
    {
        // Call paths come with perf-ring's samples only, each one interval.
        const Share self = shareOf(t.self[fn], n, 1.0), inclusive = shareOf(t.inclusive[fn], n, 1.0);
        return CallFunctionRow { f.names[fn], t.self[fn], t.inclusive[fn], self.percent, self.error, inclusive.percent,
            inclusive.error, edges(t.callers[fn], f, t.inclusive[fn]), edges(t.callees[fn], f, t.inclusive[fn]) };
    }

} // namespace

std::string shortPathName(uint64_t marker)
{
    switch (marker - kShortPathBase) {
    case 1:
        return "[deeper than the unwinder follows]";
    case 2:
        return "[code in no object: JIT or unmapped]";
    case 3:
        return "[code without CFI]";
    case 4:
        return "[a frame the unwinder does not follow: signal frame]";
    case 5:
        return "[stack copy ended: PPE_CALL_STACK]";
    case 6:
        return "[damaged stack or CFI]";
    default:
        return "[path stopped short]";
    }
}

namespace {

    bool matches(const std::string& function, const std::string& name)
    {
        return function == name || function == name + "_" || function.starts_with(name + " (");
    }

    // The rows --callers and --callees ask for, in the order asked, each once.
    void focusRows(CallPathsReport& out, const std::vector<uint32_t>& order, const Folded& f, const PathTotals& t,
        double n, const CallFocus& focus, std::vector<std::string>& warnings)
    {
        for (const bool callers : { true, false }) {
            for (const std::string& name : callers ? focus.callers : focus.callees) {
                auto found
                    = std::find_if(order.begin(), order.end(), [&](uint32_t fn) { return matches(f.names[fn], name); });
                if (found == order.end()) {
                    warnings.push_back((callers ? "--callers " : "--callees ") + name
                        + ": no function of that name in the call paths");
                    continue;
                }
                CallFunctionRow row = rowOf(*found, f, t, n);
                row.showCallers = callers;
                row.showCallees = !callers;
                row.allEdges = true;
                out.functions.push_back(std::move(row));
            }
        }
    }

    // The function table's rows (modules that are functions, named as the paths name them) get their
    // inclusive share beside their own.
    void addInclusiveColumn(Report& report, const Folded& f, const PathTotals& t, double n)
    {
        if (report.moduleKind != ModuleKind::Function || n <= 0)
            return;
        std::unordered_map<std::string_view, uint32_t> byName;
        for (uint32_t fn = 0; fn < f.names.size(); ++fn)
            byName.emplace(f.names[fn], fn);
        for (ModuleRow& row : report.modules) {
            const auto found = byName.find(row.name);
            const Share inclusive = shareOf(found != byName.end() ? t.inclusive[found->second] : 0.0, n, 1.0);
            row.inclusivePercent = inclusive.percent;
            row.inclusiveError = inclusive.error;
        }
    }

} // namespace

void addCallPaths(Report& report, const PlaceNamer& functionOf, size_t top, const CallFocus& focus)
{
    const CallPaths& calls = report.profile.calls;
    if (calls.nodes.size() < 2)
        return;
    const Folded f = fold(calls, functionOf);
    const PathTotals t = total(calls, f);
    const double n = double(calls.samples);
    CallPathsReport out { calls.samples, calls.cut, calls.nodes.size() - 1, {}, 0, {}, {} };
    std::vector<uint32_t> order;
    for (uint32_t fn = 0; fn < f.names.size(); ++fn) {
        if (f.names[fn].starts_with('['))
            out.shortPaths.push_back(
                CallEdge { f.names[fn], t.inclusive[fn], n > 0 ? 100.0 * t.inclusive[fn] / n : 0 });
        else if (t.inclusive[fn] > 0)
            order.push_back(fn);
    }
    std::stable_sort(
        order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return t.inclusive[a] > t.inclusive[b]; });
    if (!focus.empty()) {
        focusRows(out, order, f, t, n, focus, report.warnings);
    } else {
        for (size_t i = 0; i < order.size() && i < top; ++i)
            out.functions.push_back(rowOf(order[i], f, t, n));
        out.moreFunctions = order.size() > top ? order.size() - top : 0;
    }
    std::stable_sort(out.shortPaths.begin(), out.shortPaths.end(),
        [](const CallEdge& a, const CallEdge& b) { return a.samples > b.samples; });
    for (uint32_t fn = 0; fn < f.names.size(); ++fn) {
        for (const auto& [callee, samples] : t.callees[fn])
            out.arcs.push_back(CallArc { f.names[fn], f.names[callee], samples });
    }
    addInclusiveColumn(report, f, t, n);
    std::sort(out.arcs.begin(), out.arcs.end(),
        [](const CallArc& a, const CallArc& b) { return std::tie(a.caller, a.callee) < std::tie(b.caller, b.callee); });
    report.calls = std::move(out);
}

void mergeCallPaths(CallPaths& sum, const CallPaths& add, const std::vector<size_t>& objectOf, CallNodeIndex& index)
{
    if (add.nodes.empty())
        return;
    auto keyOf = [](uint32_t parent, const CallPathNode& n) {
        return std::tuple(parent, int(n.place.kind), n.place.object, n.place.address, n.marker);
    };
    if (sum.nodes.empty())
        sum.nodes.emplace_back(); // the root
    if (index.empty()) {
        for (uint32_t i = 1; i < sum.nodes.size(); ++i)
            index.emplace(keyOf(sum.nodes[i].parent, sum.nodes[i]), i);
    }
    std::vector<uint32_t> merged(add.nodes.size(), 0);
    sum.nodes[0].self += add.nodes[0].self;
    for (size_t i = 1; i < add.nodes.size(); ++i) {
        CallPathNode n = add.nodes[i];
        if (n.place.kind == CodeLocation::Kind::Object)
            n.place.object = objectOf.at(n.place.object);
        n.parent = merged[n.parent];
        auto [at, added] = index.try_emplace(keyOf(n.parent, n), uint32_t(sum.nodes.size()));
        if (added)
            sum.nodes.push_back(n);
        else
            sum.nodes[at->second].self += n.self;
        merged[i] = at->second;
    }
    sum.samples += add.samples;
    sum.cut += add.cut;
}

} // namespace ppe::formatter
