#include "live_profile.h"

#include "proc_maps.h"
#include "task_list.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe {

namespace {

    // Up to `capacity` - 1 bytes of the file at `path`, '\0'-terminated; the bytes read.
    size_t readSmall(const char* path, char* out, size_t capacity)
    {
        size_t used = 0;
        const Transient file = openTransient(path, O_RDONLY); // may be on the collector thread
        const int fd = file.fd;
        if (fd < 0) {
            out[0] = '\0';
            return 0;
        }
        while (used + 1 < capacity) {
            const ssize_t n = read(fd, out + used, capacity - 1 - used);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            used += size_t(n);
        }
        closeTransient(file);
        out[used] = '\0';
        return used;
    }

    // Field 22 of /proc/self/stat: the process's start time in clock ticks after boot.
    uint64_t processStartTicks()
    {
        char stat[1024];
        const size_t n = readSmall("/proc/self/stat", stat, sizeof(stat));
        return statField(stat, n, 22);
    }

    // Who owns the live file: with the pid of the record, enough to tell whether it still runs.
    void describeOwner(LiveFileHeader& file)
    {
        file.startTicks = processStartTicks();
        const size_t n = readSmall("/proc/sys/kernel/random/boot_id", file.bootId, sizeof(file.bootId));
        if (n && file.bootId[n - 1] == '\n')
            file.bootId[n - 1] = '\0';
    }

} // namespace

LiveProfile* createLiveProfile(
    const BinLayout& layout, uintptr_t bias, uintptr_t imageStart, uintptr_t imageEnd, int fd, uint32_t callNodes)
{
    const LiveFileLayout plan
        = planLiveFile(sizeof(LiveProfile), layout.count, uint64_t(sysconf(_SC_PAGESIZE)), callNodes);
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
    if (fd >= 0)
        describeOwner(live->file); // for a recovery of the file; two reads a forked child need not pay
    auto* record = reinterpret_cast<ProfileRecord*>(base + plan.recordOffset);
    record->layout = layout;
    record->loadBias = bias;
    live->histogram = makeHistogram(record, reinterpret_cast<uint32_t*>(base + plan.binsOffset),
        reinterpret_cast<PcSlot*>(base + plan.pcsOffset), imageStart, imageEnd);
    live->mappingSize = size;
    live->countersOffset = size_t(plan.binsOffset);
    if (callNodes)
        live->calls = makeCallTree(base + plan.callsOffset, callNodes);
    return live;
}

LiveProfile* cloneEmpty(const LiveProfile& live, int fd)
{
    const ProfileRecord& from = *live.histogram.record;
    LiveProfile* copy = createLiveProfile(
        from.layout, from.loadBias, live.histogram.imageStart, live.histogram.imageEnd, fd, live.file.callNodes);
    if (!copy)
        return nullptr;
    ProfileRecord& to = *copy->histogram.record;
    std::memcpy(&to, &from, sizeof(ProfileRecord));
    clearCounts(to);
    return copy;
}

void markSampleTime(LiveProfile& live)
{
    timespec now {};
    clock_gettime(CLOCK_REALTIME, &now);
    std::atomic_ref<int64_t>(live.file.lastSampleNs)
        .store(int64_t(now.tv_sec) * 1'000'000'000 + now.tv_nsec, std::memory_order_relaxed);
}

void clearCounters(LiveProfile& live)
{
    // (Anonymous mappings only: a forked child of a file-backed profile gets cloneEmpty.)
    clearCounts(*live.histogram.record);
    // The counters are private copy-on-write pages: dropping them gives zero pages without copying.
    char* counters = reinterpret_cast<char*>(&live) + live.countersOffset;
    madvise(counters, live.mappingSize - live.countersOffset, MADV_DONTNEED);
    if (live.calls.header) // its pages were dropped too: an empty tree again
        live.calls = makeCallTree(live.calls.header, live.file.callNodes);
}

} // namespace ppe
