#include "call_records.h"
#include "thread_records.h"

#include "ppe/core/call_tree.h"
#include "ppe/profile/profile_reader.h"
#include "ppe/profile/text_fields.h"

namespace ppe::detail {

namespace {

    using Fields = std::vector<std::string>;

    bool take(std::optional<uint64_t> value, uint64_t& out)
    {
        out = value.value_or(0);
        return value.has_value();
    }

    std::string onCallPaths(const Fields& f, CallRecords& r, CallPaths& calls)
    {
        const char* usage = "call-paths: expected SAMPLES CUT NODES (CUT <= SAMPLES)";
        uint64_t samples = 0, cut = 0, nodes = 0;
        if (f.size() != 4 || !take(parseUnsigned(f[1]), samples) || !take(parseUnsigned(f[2]), cut)
            || !take(parseUnsigned(f[3]), nodes) || cut > samples)
            return usage;
        if (r.header)
            return "a second 'call-paths' line";
        if (nodes > kMaxProfileCallNodes)
            return "call-paths: more than " + std::to_string(kMaxProfileCallNodes) + " nodes (the limit of a profile)";
        calls.samples = samples;
        calls.cut = cut;
        calls.nodes.reserve(size_t(nodes) + 1);
        calls.nodes.emplace_back(); // the root
        r.header = true;
        r.declared = nodes;
        return "";
    }

    std::string onCallNode(const Fields& f, const CallRecords& r, Profile& p)
    {
        const char* usage = "call-node: expected ID PARENT PLACE SELF (PLACE: 0xADDRESS, image+0xADDRESS or "
                            "OBJECT+0xOFFSET of an object named before)";
        CallPaths& calls = p.calls;
        uint64_t id = 0, parent = 0, self = 0;
        const std::optional<CodeLocation> place = f.size() == 5 ? parseLocation(f[3], p) : std::nullopt;
        if (!place || place->kind == CodeLocation::Kind::None || !take(parseUnsigned(f[1]), id)
            || !take(parseUnsigned(f[2]), parent) || !take(parseUnsigned(f[4]), self))
            return usage;
        if (!r.header)
            return "call-node before the 'call-paths' line";
        if (id != calls.nodes.size())
            return "call-node ids must count up from 1";
        if (id > r.declared)
            return "more call-node lines than 'call-paths' says";
        if (parent >= id)
            return "call-node " + f[1] + ": its parent " + f[2] + " must come before it";
        CallPathNode node;
        node.parent = uint32_t(parent);
        node.self = self;
        const bool marker = place->kind == CodeLocation::Kind::Address && place->address >= kShortPathBase
            && place->address < kShortPathEnd;
        if (marker)
            node.marker = place->address;
        else
            node.place = *place;
        calls.nodes.push_back(node);
        return "";
    }

} // namespace

std::optional<std::string> takeCallRecord(const std::vector<std::string>& f, CallRecords& r, Profile& p)
{
    if (f[0] == "call-paths")
        return onCallPaths(f, r, p.calls);
    if (f[0] == "call-node")
        return onCallNode(f, r, p);
    return std::nullopt;
}

std::string finishCallPaths(const CallRecords& r, CallPaths& calls)
{
    if (!r.header)
        return "";
    if (calls.nodes.size() - 1 != r.declared)
        return "call-paths promises " + std::to_string(r.declared) + " nodes; " + std::to_string(calls.nodes.size() - 1)
            + " call-node lines follow";
    uint64_t self = 0;
    for (size_t i = 1; i < calls.nodes.size(); ++i) {
        if (calls.nodes[i].self > calls.samples - self) // checked before adding: no sum wraps
            return "call-node samples add up to more than call-paths' " + std::to_string(calls.samples);
        self += calls.nodes[i].self;
    }
    calls.nodes.front().self = calls.samples - self;
    return "";
}

} // namespace ppe::detail
