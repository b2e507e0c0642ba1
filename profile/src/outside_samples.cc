#include "outside_samples.h"

#include "ppe/core/histogram.h"
#include "ppe/profile/profile_reader.h"
#include "ppe/profile/text_fields.h"

#include <algorithm>

namespace ppe::detail {

namespace {

    using Fields = std::vector<std::string>;

    std::string onMapping(const Fields& f, OutsideSamples& s)
    {
        const char* usage = "mapping: expected 0xSTART 0xEND 0xOFFSET BUILD-ID \"PATH\" (START < END)";
        if (f.size() != 6)
            return usage;
        auto start = parseHex(f[1]);
        auto end = parseHex(f[2]);
        auto offset = parseHex(f[3]);
        auto buildId = parseBuildId(f[4]);
        if (!start || !end || !offset || !buildId || *start >= *end)
            return usage;
        if (!s.mappings.empty() && *start < s.mappings.back().end)
            return "mapping: mappings must ascend without overlapping";
        if (s.mappings.size() == kMaxProfileMappings)
            return "more than " + std::to_string(kMaxProfileMappings) + " 'mapping' records (the limit of a profile)";
        auto [at, added] = s.pathIds.try_emplace(f[5], uint32_t(s.paths.size()));
        if (added && (s.pathBytes += f[5].size() + 1) > kMaxProfileMappingPaths)
            return "more than " + std::to_string(kMaxProfileMappingPaths / 1024)
                + " KiB of 'mapping' paths (the limit of a profile)";
        if (added)
            s.paths.push_back(f[5]);
        s.mappings.push_back(OutsideSamples::Mapping { *start, *end, *offset, at->second, *buildId });
        return "";
    }

    std::string onOutsidePc(const Fields& f, OutsideSamples& s)
    {
        if (f.size() != 3)
            return "outside-pc: expected 0xPC COUNT (COUNT > 0)";
        const uint64_t count = parseUnsigned(f[2]).value_or(0);
        auto pc = parseHex(f[1]);
        if (!pc || !count)
            return "outside-pc: expected 0xPC COUNT (COUNT > 0)";
        if (s.pcs.size() == kMaxProfileOutsidePcs)
            return "more than " + std::to_string(kMaxProfileOutsidePcs)
                + " 'outside-pc' records (the limit of a profile)";
        s.pcs.push_back(Bin { *pc, count });
        return "";
    }

    std::string onRetiredObject(const Fields& f, OutsideSamples& s)
    {
        auto id = f.size() == 4 ? parseUnsigned(f[1]) : std::nullopt;
        auto buildId = f.size() == 4 ? parseBuildId(f[2]) : std::nullopt;
        if (!id || !buildId)
            return "retired-object: expected ID BUILD-ID \"PATH\"";
        if (*id != s.retired.size())
            return "retired-object ids must count up from 0";
        if (s.retired.size() == kMaxProfileRetiredObjects)
            return "more than " + std::to_string(kMaxProfileRetiredObjects)
                + " 'retired-object' records (the limit of a profile)";
        s.retired.push_back(SharedObject { f[3], *buildId, 0, {} });
        return "";
    }

    std::string onRetiredHit(const Fields& f, OutsideSamples& s)
    {
        const char* usage = "retired-hit: expected ID 0xOFFSET COUNT (COUNT > 0)";
        if (f.size() != 4)
            return usage;
        const uint64_t count = parseUnsigned(f[3]).value_or(0);
        auto id = parseUnsigned(f[1]);
        auto offset = parseHex(f[2]);
        if (!id || !offset || !count)
            return usage;
        if (*id >= s.retired.size())
            return "retired-hit names object " + f[1] + " before its retired-object line";
        if (s.retiredHits.size() == kMaxProfileObjectHits)
            return "more than " + std::to_string(kMaxProfileObjectHits)
                + " 'retired-hit' records (the limit of a profile)";
        s.retiredHits.push_back(OutsideSamples::Hit { size_t(*id), *offset, count });
        return "";
    }

    // The attribution of one profile's outside samples (attributeOutside).
    struct Attribution {
        Profile& p;
        const OutsideSamples& s;
        size_t base; // the objects before: read from `object` records
        std::vector<int> objectOfPath; // index into p.objects, -1: none yet
        std::vector<OutsideSamples::Hit> hits;
    };

    const OutsideSamples::Mapping* findMapping(const OutsideSamples& s, uint64_t address)
    {
        auto m = std::upper_bound(s.mappings.begin(), s.mappings.end(), address,
            [](uint64_t a, const OutsideSamples::Mapping& x) { return a < x.end; });
        return m != s.mappings.end() && m->start <= address ? &*m : nullptr;
    }

    unsigned categoryOf(const Attribution& a, const OutsideSamples::Mapping* m, bool belowRange)
    {
        return categoryOfMapping(m ? a.s.paths[m->path].c_str() : nullptr, a.p.image.c_str(), belowRange);
    }

    bool tableFull(const Attribution& a) { return a.p.objects.size() - a.base >= kMaxAttributedObjects; }

    // The object of the mapping's path, added if new; -1 when the table is full.
    int objectFor(Attribution& a, const OutsideSamples::Mapping& m)
    {
        int& object = a.objectOfPath[m.path];
        if (object < 0 && !tableFull(a)) {
            a.p.objects.push_back(SharedObject { a.s.paths[m.path], "", 0, {} });
            object = int(a.p.objects.size() - 1);
        }
        return object;
    }

    void count(Profile& p, unsigned category, uint64_t samples)
    {
        p.counts[category] += samples;
        p.total += samples;
    }

    void addHit(Attribution& a, int object, uint64_t offset, uint64_t samples)
    {
        a.p.objects[size_t(object)].hits += samples;
        a.hits.push_back(OutsideSamples::Hit { size_t(object), offset, samples });
    }

    void attributePcs(Attribution& a)
    {
        const uint64_t runStart = a.p.rangeStart + a.p.loadBias;
        for (const Bin& pc : a.s.pcs) {
            const OutsideSamples::Mapping* m = findMapping(a.s, pc.address);
            const unsigned category = categoryOf(a, m, pc.address < runStart);
            const int object = category == kShared ? objectFor(a, *m) : -1;
            count(a.p, category == kShared && object < 0 ? kUnknown : category, pc.count);
            if (object >= 0)
                addHit(a, object, pc.address - m->start + m->offset, pc.count);
        }
    }

    // A run-time address in a shared object's mapping as that object's file offset; with `image`,
    // one in the monitored image's own mappings as its link-time address. Others stay as they are.
    void placeAddress(Attribution& a, CodeLocation& place, bool image)
    {
        const OutsideSamples::Mapping* m
            = place.kind == CodeLocation::Kind::Address ? findMapping(a.s, place.address) : nullptr;
        if (m && image && a.s.paths[m->path] == a.p.image) {
            place = CodeLocation { CodeLocation::Kind::Image, 0, place.address - a.p.loadBias };
            return;
        }
        const int object = m && categoryOf(a, m, false) == kShared ? objectFor(a, *m) : -1;
        if (object >= 0)
            place = CodeLocation { CodeLocation::Kind::Object, size_t(object), place.address - m->start + m->offset };
    }

    // The collector names blocked places in the image itself.
    void placeBlocked(Attribution& a)
    {
        for (BlockedPlace& b : a.p.blocked) {
            placeAddress(a, b.site, false);
            placeAddress(a, b.caller, false);
        }
    }

    void placeCallPaths(Attribution& a)
    {
        for (CallPathNode& n : a.p.calls.nodes)
            placeAddress(a, n.place, true);
    }

    // Each object's build id: that of the first mapping of its path that has one.
    void addBuildIds(Attribution& a)
    {
        for (const OutsideSamples::Mapping& m : a.s.mappings) {
            const int object = a.objectOfPath[m.path];
            if (object >= 0 && a.p.objects[size_t(object)].buildId.empty())
                a.p.objects[size_t(object)].buildId = m.buildId;
        }
    }

    void addRetired(Attribution& a)
    {
        std::vector<int> index(a.s.retired.size(), -1);
        for (size_t i = 0; i < a.s.retired.size(); ++i) {
            const SharedObject& r = a.s.retired[i];
            for (size_t k = a.base; k < a.p.objects.size() && index[i] < 0; ++k) {
                if (a.p.objects[k].path == r.path && a.p.objects[k].buildId == r.buildId)
                    index[i] = int(k);
            }
            if (index[i] < 0 && !tableFull(a)) {
                a.p.objects.push_back(r);
                index[i] = int(a.p.objects.size() - 1);
            }
        }
        for (const OutsideSamples::Hit& h : a.s.retiredHits) {
            const int object = index[h.object];
            count(a.p, object < 0 ? kUnknown : kShared, h.count);
            if (object >= 0)
                addHit(a, object, h.offset, h.count);
        }
    }

    // The hits by object, then offset; samples at one offset (an object unloaded and loaded again) added.
    void sortHits(Attribution& a)
    {
        std::sort(a.hits.begin(), a.hits.end(), [](const OutsideSamples::Hit& x, const OutsideSamples::Hit& y) {
            return x.object != y.object ? x.object < y.object : x.offset < y.offset;
        });
        for (const OutsideSamples::Hit& h : a.hits) {
            auto& hits = a.p.objects[h.object].hitsByOffset;
            if (!hits.empty() && hits.back().fileOffset == h.offset)
                hits.back().count += h.count;
            else
                hits.push_back(ObjectSamples { h.offset, h.count });
        }
    }

} // namespace

std::optional<std::string> takeOutsideRecord(const std::vector<std::string>& f, OutsideSamples& s)
{
    if (f[0] == "mapping")
        return onMapping(f, s);
    if (f[0] == "outside-pc")
        return onOutsidePc(f, s);
    if (f[0] == "retired-object")
        return onRetiredObject(f, s);
    if (f[0] == "retired-hit")
        return onRetiredHit(f, s);
    return std::nullopt;
}

void attributeOutside(Profile& p, const OutsideSamples& s)
{
    Attribution a { p, s, p.objects.size(), std::vector<int>(s.paths.size(), -1), {} };
    attributePcs(a);
    placeBlocked(a);
    placeCallPaths(a);
    addBuildIds(a);
    addRetired(a);
    sortHits(a);
}

} // namespace ppe::detail
