// libFuzzer target: the text files ppe-arc reads from its user for the counters (issue 37), each
// given the whole input: the call graph of `ppe-arc descend --graph` (readCallGraph, descent.h),
// then the descent over it with made-up counts and its table and DOT output; and the per-core
// profile of `ppe-arc count --range --core-profile` (parseCoreProfile, core_profile.h). What they
// accept must hold together: a pruned function's bound is below the threshold, a profile's bit is
// one of 32 and survives being written out and read again.
#include "ppe/arc/core_profile.h"
#include "ppe/arc/descent.h"

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

// Made-up but deterministic counts: a run's total, and each function's share of it from its name.
ppe::Result<ppe::arc::BatchCounts> measure(const ppe::arc::CallGraph& g, const std::vector<uint32_t>& batch)
{
    ppe::arc::BatchCounts counts { 1000000, {} };
    for (uint32_t f : batch)
        counts.inclusive.push_back(std::hash<std::string> {}(g.names.at(f)) % (counts.total + 1));
    return counts;
}

void graph(const std::string& text)
{
    std::istringstream in(text);
    ppe::Result<ppe::arc::CallGraph> g = ppe::arc::readCallGraph(in, "fuzz.graph");
    if (!g)
        return;
    check(g->size() > 0 && g->callees.size() == g->size() && g->callers.size() == g->size());
    const ppe::arc::DescentOptions options { 0, 0.05, uint32_t(text.size() % 8 + 1) };
    ppe::Result<ppe::arc::DescentResult> r
        = ppe::arc::descend(*g, options, [&](const std::vector<uint32_t>& batch) { return measure(*g, batch); });
    if (!r)
        return;
    check(r->functions.size() == g->size() && r->batches <= r->batchesWithoutPruning + g->size());
    for (const ppe::arc::FunctionCount& f : r->functions)
        check(f.verdict != ppe::arc::FunctionCount::Verdict::Pruned || f.bound < r->threshold);
    check(!ppe::arc::descentTable(*g, *r).empty() && !ppe::arc::descentDot(*g, *r).empty());
}

void profile(const std::string& text)
{
    ppe::Result<ppe::arc::CoreProfile> p = ppe::arc::parseCoreProfile(text, "fuzz.profile");
    if (!p)
        return;
    check(!p->core.empty() && p->rangeBit < 32);
    char again[256];
    std::snprintf(again, sizeof(again), "range-enable 0x%x %u\nrange-end %s\n", p->rangeRegister, p->rangeBit,
        p->rangeEndInclusive ? "inclusive" : "exclusive");
    ppe::Result<ppe::arc::CoreProfile> q
        = ppe::arc::parseCoreProfile("core " + p->core + "\n" + again, "fuzz.profile (again)");
    check(q && q->core == p->core && q->rangeRegister == p->rangeRegister && q->rangeBit == p->rangeBit
        && q->rangeEndInclusive == p->rangeEndInclusive);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    graph(text);
    profile(text);
    return 0;
}
