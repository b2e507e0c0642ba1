#include "ppe/core/object_attribution.h"

#include "ppe/core/histogram.h"

#include <algorithm>

namespace ppe {

namespace {

    // The object index for `key`, adding it if new; -1 when the table is full.
    int objectFor(ObjectTable& t, const PcPlace& place)
    {
        for (size_t i = 0; i < t.count; ++i) {
            if (t.keys[i] == place.key)
                return int(i);
        }
        if (t.count == t.capacity)
            return -1;
        t.keys[t.count] = place.key;
        t.objects[t.count] = ObjectInfo { place.path, 0, t.buildIds[t.count], 0 };
        return int(t.count++);
    }

} // namespace

void attributeOutsidePc(ProfileRecord& record, ObjectTable& t, const PcPlace& place, bool belowRange, uint64_t count)
{
    const unsigned category = categoryOfMapping(place.path, record.image, belowRange);
    const int object = category == kShared ? objectFor(t, place) : -1;
    if (category == kShared && object < 0) {
        record.counts[kUnknown] += count;
        return;
    }
    record.counts[category] += count;
    if (object < 0)
        return;
    t.objects[object].hits += count;
    t.hits[t.hitCount++] = ObjectCountRecord { uint32_t(object), place.fileOffset, count };
}

int objectOfPlace(const ProfileRecord& record, ObjectTable& t, const PcPlace& place)
{
    return categoryOfMapping(place.path, record.image, false) == kShared ? objectFor(t, place) : -1;
}

void sortObjectHits(ObjectTable& t)
{
    std::sort(t.hits, t.hits + t.hitCount, [](const ObjectCountRecord& x, const ObjectCountRecord& y) {
        return x.object != y.object ? x.object < y.object : x.fileOffset < y.fileOffset;
    });
}

} // namespace ppe
