#include "live_profile.h"

#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe {

LiveProfile* createLiveProfile(
    const BinLayout& layout, uintptr_t bias, uintptr_t imageStart, uintptr_t imageEnd, int fd)
{
    const LiveFileLayout plan = planLiveFile(sizeof(LiveProfile), layout.count, uint64_t(sysconf(_SC_PAGESIZE)));
    const size_t size = size_t(plan.fileSize);
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
    writeLiveHeader(live->file, plan);
    auto* record = reinterpret_cast<ProfileRecord*>(base + plan.recordOffset);
    record->layout = layout;
    record->loadBias = bias;
    live->histogram = makeHistogram(record, reinterpret_cast<uint32_t*>(base + plan.binsOffset),
        reinterpret_cast<PcSlot*>(base + plan.pcsOffset), imageStart, imageEnd);
    live->mappingSize = size;
    live->countersOffset = size_t(plan.binsOffset);
    return live;
}

LiveProfile* cloneEmpty(const LiveProfile& live, int fd)
{
    const ProfileRecord& from = *live.histogram.record;
    LiveProfile* copy
        = createLiveProfile(from.layout, from.loadBias, live.histogram.imageStart, live.histogram.imageEnd, fd);
    if (!copy)
        return nullptr;
    ProfileRecord& to = *copy->histogram.record;
    std::memcpy(&to, &from, sizeof(ProfileRecord));
    clearCounts(to);
    return copy;
}

void clearCounters(LiveProfile& live)
{
    // (Anonymous mappings only: a forked child of a file-backed profile gets cloneEmpty.)
    clearCounts(*live.histogram.record);
    // The counters are private copy-on-write pages: dropping them gives zero pages without copying.
    char* counters = reinterpret_cast<char*>(&live) + live.countersOffset;
    madvise(counters, live.mappingSize - live.countersOffset, MADV_DONTNEED);
}

} // namespace ppe
