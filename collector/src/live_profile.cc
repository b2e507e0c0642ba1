#include "live_profile.h"

#include <atomic>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe {

namespace {

    size_t roundUp(size_t v, size_t to) { return (v + to - 1) / to * to; }

    void bump(uint64_t& counter, uint64_t weight)
    {
        std::atomic_ref<uint64_t>(counter).fetch_add(weight, std::memory_order_relaxed);
    }

    // Counters saturate rather than wrap; what does not fit is still counted as in range.
    void bumpBin(ProfileRecord& record, uint32_t& bin, uint64_t weight)
    {
        std::atomic_ref<uint32_t> counter(bin);
        uint32_t seen = counter.load(std::memory_order_relaxed);
        uint32_t added = 0;
        do {
            added = uint32_t(weight < UINT32_MAX - seen ? weight : UINT32_MAX - seen);
        } while (added && !counter.compare_exchange_weak(seen, seen + added, std::memory_order_relaxed));
        if (added < weight)
            bump(record.saturated, weight - added);
    }

} // namespace

LiveProfile* createLiveProfile(
    const BinLayout& layout, uintptr_t bias, uintptr_t imageStart, uintptr_t imageEnd, int fd)
{
    const size_t page = size_t(sysconf(_SC_PAGESIZE));
    const size_t headSize = roundUp(sizeof(LiveProfile), 64) + sizeof(ProfileRecord);
    const size_t countersOffset = roundUp(headSize, page);
    const size_t binsSize = roundUp(layout.bytes(), 64);
    const size_t size = roundUp(countersOffset + binsSize + sizeof(PcSlot) * kPcTableSlots, page);
    // Blocks reserved now, or none: touching a page of a shared file mapping that the filesystem
    // cannot back (full disk, quota) raises SIGBUS in the program.
    if (fd >= 0 && fallocate(fd, 0, 0, off_t(size)) != 0)
        return nullptr;
    void* memory = fd >= 0 ? mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
                           : mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return nullptr;
    auto* base = static_cast<char*>(memory);
    auto* live = reinterpret_cast<LiveProfile*>(base);
    LiveFileHeader& h = live->file;
    for (unsigned i = 0; i < sizeof(kLiveMagic); ++i)
        h.magic[i] = kLiveMagic[i];
    h.headerSize = sizeof(LiveProfile);
    h.recordSize = sizeof(ProfileRecord);
    h.recordOffset = roundUp(sizeof(LiveProfile), 64);
    h.binsOffset = countersOffset;
    h.pcsOffset = countersOffset + binsSize;
    h.pcSlots = kPcTableSlots;
    h.pcSlotSize = sizeof(PcSlot);
    h.fileSize = size;
    live->record = reinterpret_cast<ProfileRecord*>(base + roundUp(sizeof(LiveProfile), 64));
    live->bins = reinterpret_cast<uint32_t*>(base + countersOffset);
    live->pcs = reinterpret_cast<PcSlot*>(base + countersOffset + binsSize);
    live->runStart = layout.start + bias;
    live->runLength = layout.count << layout.shift;
    live->shift = layout.shift;
    live->imageStart = imageStart;
    live->imageEnd = imageEnd;
    live->mappingSize = size;
    live->countersOffset = countersOffset;
    live->record->layout = layout;
    live->record->loadBias = bias;
    return live;
}

LiveProfile* cloneEmpty(const LiveProfile& live, int fd)
{
    const ProfileRecord& from = *live.record;
    LiveProfile* copy = createLiveProfile(from.layout, from.loadBias, live.imageStart, live.imageEnd, fd);
    if (!copy)
        return nullptr;
    ProfileRecord& to = *copy->record;
    const char* source = reinterpret_cast<const char*>(&from);
    char* target = reinterpret_cast<char*>(&to);
    for (size_t i = 0; i < sizeof(ProfileRecord); ++i)
        target[i] = source[i];
    for (uint64_t& count : to.counts)
        count = 0;
    to.saturated = 0;
    to.ticks = 0;
    return copy;
}

void recordSample(const LiveProfile& live, uintptr_t pc, uint64_t weight)
{
    ProfileRecord& record = *live.record;
    const uint64_t offset = pc - live.runStart;
    if (offset < live.runLength) {
        bump(record.counts[kInRange], weight);
        bumpBin(record, live.bins[offset >> live.shift], weight);
        return;
    }
    if (pc >= live.imageStart && pc < live.imageEnd) {
        bump(record.counts[pc < live.runStart ? kBelow : kAbove], weight);
        return;
    }
    if (!addPc(live.pcs, pc, weight))
        bump(record.counts[kLost], weight);
}

void clearCounters(LiveProfile& live)
{
    // (Anonymous mappings only: a forked child of a file-backed profile gets cloneEmpty.)
    ProfileRecord& record = *live.record;
    for (uint64_t& count : record.counts)
        count = 0;
    record.saturated = 0;
    record.ticks = 0;
    // The counters are private copy-on-write pages: dropping them gives zero pages without copying.
    char* counters = reinterpret_cast<char*>(&live) + live.countersOffset;
    madvise(counters, live.mappingSize - live.countersOffset, MADV_DONTNEED);
}

} // namespace ppe
