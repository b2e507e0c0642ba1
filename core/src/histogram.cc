#include "ppe/core/histogram.h"

#include <atomic>
#include <cstring>

namespace ppe {

namespace {

    bool startsWith(const char* text, const char* prefix)
    {
        return std::strncmp(text, prefix, std::strlen(prefix)) == 0;
    }

} // namespace

Histogram makeHistogram(ProfileRecord* record, uint32_t* bins, PcSlot* pcs, uint64_t imageStart, uint64_t imageEnd)
{
    const BinLayout& layout = record->layout;
    Histogram h;
    h.record = record;
    h.bins = bins;
    h.pcs = pcs;
    h.runStart = layout.start + record->loadBias;
    h.runLength = layout.count << layout.shift;
    h.shift = layout.shift;
    h.imageStart = imageStart;
    h.imageEnd = imageEnd;
    return h;
}

void countSamples(ProfileRecord& record, unsigned category, uint64_t weight)
{
    std::atomic_ref<uint64_t>(record.counts[category]).fetch_add(weight, std::memory_order_relaxed);
}

void bumpBin(ProfileRecord& record, uint32_t& bin, uint64_t weight)
{
    std::atomic_ref<uint32_t> counter(bin);
    uint32_t seen = counter.load(std::memory_order_relaxed);
    uint32_t added = 0;
    do {
        added = uint32_t(weight < UINT32_MAX - seen ? weight : UINT32_MAX - seen);
    } while (added && !counter.compare_exchange_weak(seen, seen + added, std::memory_order_relaxed));
    if (added < weight)
        std::atomic_ref<uint64_t>(record.saturated).fetch_add(weight - added, std::memory_order_relaxed);
}

void recordSample(const Histogram& h, uint64_t pc, uint64_t weight)
{
    ProfileRecord& record = *h.record;
    const uint64_t offset = pc - h.runStart;
    if (offset < h.runLength) {
        countSamples(record, kInRange, weight);
        bumpBin(record, h.bins[offset >> h.shift], weight);
        return;
    }
    if (pc >= h.imageStart && pc < h.imageEnd) {
        countSamples(record, pc < h.runStart ? kBelow : kAbove, weight);
        return;
    }
    if (!addPc(h.pcs, pc, weight))
        countSamples(record, kLost, weight);
}

unsigned categoryOfMapping(const char* path, const char* imagePath, bool belowRange)
{
    if (!path)
        return kUnknown;
    if (std::strcmp(path, "[vdso]") == 0)
        return kVdso;
    if (!path[0] || path[0] == '[' || startsWith(path, "/memfd:"))
        return kAnon;
    if (std::strcmp(path, imagePath) == 0)
        return belowRange ? kBelow : kAbove;
    return kShared;
}

void clearCounts(ProfileRecord& record)
{
    for (uint64_t& count : record.counts)
        count = 0;
    record.saturated = 0;
    record.ticks = 0;
    record.weightSquares = 0;
    record.ringLost = 0;
    record.ringForeign = 0;
}

void settleCounts(ProfileRecord& record, const uint32_t* bins, const PcSlot* pcs, uint32_t slots)
{
    uint64_t binned = 0;
    for (uint64_t i = 0; i < record.layout.count; ++i)
        binned += bins[i];
    record.counts[kInRange] = binned + record.saturated;
    uint64_t outside = 0;
    for (uint32_t i = 0; i < slots; ++i)
        outside += pcs[i].count;
    record.counts[kShared] = record.counts[kVdso] = record.counts[kAnon] = 0;
    record.counts[kUnknown] = outside;
}

} // namespace ppe
