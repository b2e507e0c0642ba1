#include "live_state.h"

#include "image.h"
#include "threads.h"

#include <atomic>
#include <cstring>
#include <ctime>
#include <sys/resource.h>
#include <sys/uio.h>
#include <unistd.h>

namespace ppe {

namespace {

    int64_t realtimeNs()
    {
        timespec t {};
        clock_gettime(CLOCK_REALTIME, &t);
        return int64_t(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
    }

    uint64_t microseconds(const timeval& t) { return uint64_t(t.tv_sec) * 1'000'000 + uint64_t(t.tv_usec); }

    // The samples counted so far: the record's totals, and those the PC table holds (their
    // categories are decided only when a profile is written).
    uint64_t samplesSoFar(const LiveProfile& live)
    {
        uint64_t samples = totalSamples(*live.histogram.record);
        for (uint32_t i = 0; i < kPcTableSlots; ++i)
            samples += std::atomic_ref<const uint64_t>(live.histogram.pcs[i].count).load(std::memory_order_relaxed);
        return samples;
    }

    uint32_t nextCopy(uint32_t current) { return current == 0 ? 1 : 0; }

    // The build id of an ELF file whose first page is mapped readable at [start, end), read from a
    // copy: another thread may dlclose the library meanwhile, and then process_vm_readv fails
    // where reading the memory would fault (with every signal blocked, a fault ends the process).
    uint32_t copiedBuildId(uintptr_t start, uintptr_t end, uint8_t* out)
    {
        alignas(8) char copy[8192];
        const size_t want = end - start < sizeof(copy) ? end - start : sizeof(copy);
        iovec local { copy, want };
        iovec remote { reinterpret_cast<void*>(start), want };
        const ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
        if (got <= 0)
            return 0;
        const auto base = reinterpret_cast<uintptr_t>(copy);
        return readBuildIdOfMapping(base, base + size_t(got), out, kMaxBuildId);
    }

    // The build id of the file mapped at `path` (an arena offset of `table`), from its mapping at
    // offset 0: normally just before mapping `at`, else anywhere.
    uint32_t buildIdOf(const MapsTable& table, size_t at, uint8_t* out)
    {
        const uint32_t path = table.mappings[at].path;
        size_t k = at;
        while (k > 0 && table.mappings[k - 1].path == path)
            --k;
        for (size_t n = 0; n < table.mappingCount; ++n, k = (k + 1) % table.mappingCount) {
            const Mapping& m = table.mappings[k];
            if (m.path == path && m.offset == 0 && m.readable)
                return copiedBuildId(m.start, m.end, out);
        }
        return 0;
    }

    // Copies the path at `path` of `table` into `to`; returns its offset there, 0 when it does not fit.
    uint32_t copyPath(LiveMappings& to, const MapsTable& table, uint32_t path)
    {
        if (!path)
            return 0;
        const char* text = table.paths + path;
        const size_t length = std::strlen(text);
        if (to.pathUsed + length + 1 > kLiveMapPaths) {
            to.truncated = 1;
            return 0;
        }
        const uint32_t at = to.pathUsed;
        std::memcpy(to.paths + at, text, length + 1);
        to.pathUsed += uint32_t(length + 1);
        return at;
    }

    void copyMappings(LiveMappings& to, const MapsTable& table)
    {
        to.count = 0;
        to.pathUsed = 1;
        to.paths[0] = '\0';
        to.truncated = table.truncated;
        uint32_t lastPath = UINT32_MAX; // consecutive mappings of one file share one copy
        uint32_t copied = 0;
        for (size_t k = 0; k < table.mappingCount; ++k) {
            const Mapping& m = table.mappings[k];
            if (!m.executable)
                continue;
            if (to.count == kLiveMaxMappings) {
                to.truncated = 1;
                return;
            }
            LiveMapping& out = to.mappings[to.count++];
            out = LiveMapping { m.start, m.end, m.offset, 0, 0, {} };
            if (m.path != lastPath) {
                copied = copyPath(to, table, m.path);
                lastPath = m.path;
            }
            out.path = copied;
            const char* name = table.paths + m.path;
            if (m.path && name[0] == '/')
                out.buildIdSize = buildIdOf(table, k, out.buildId);
        }
    }

} // namespace

bool readLiveMappings(LiveMappings& to, MapsScratch& scratch)
{
    MapsTable table;
    if (!readMapsInto(scratch, &table))
        return false;
    copyMappings(to, table);
    to.takenNs = realtimeNs();
    return true;
}

void refreshLiveMappings(LiveProfile& live, MapsScratch& scratch)
{
    std::atomic_ref<uint32_t> current(live.file.mapsCurrent);
    const uint32_t next = nextCopy(current.load(std::memory_order_relaxed));
    if (readLiveMappings(*liveMappings(reinterpret_cast<char*>(&live), live.file, next), scratch))
        current.store(next, std::memory_order_release);
}

void refreshLiveThreads(LiveProfile& live, uint64_t minCpuNs)
{
    LiveThreads* first = liveThreads(reinterpret_cast<char*>(&live), live.file, 0);
    if (!first)
        return;
    std::atomic_ref<uint32_t> current(live.file.threads);
    const uint32_t next = nextCopy(current.load(std::memory_order_relaxed) & ~kLiveThreadsMark);
    LiveThreads& to = first[next];
    to.count = uint32_t(snapshotThreads(to.threads, kLiveThreads, minCpuNs));
    to.takenNs = realtimeNs();
    current.store(kLiveThreadsMark | next, std::memory_order_release);
}

void refreshLiveUsage(LiveProfile& live, uint64_t wallNs, uint64_t activeNs, bool running)
{
    std::atomic_ref<uint32_t> current(live.file.usageCurrent);
    const uint32_t next = nextCopy(current.load(std::memory_order_relaxed));
    rusage self {};
    getrusage(RUSAGE_SELF, &self);
    LiveUsage& u = live.file.usage[next];
    u.takenNs = realtimeNs();
    u.wallNs = wallNs;
    u.activeNs = activeNs;
    u.samples = samplesSoFar(live);
    u.cpuUserUs = microseconds(self.ru_utime);
    u.cpuSystemUs = microseconds(self.ru_stime);
    u.running = running;
    current.store(next, std::memory_order_release);
}

} // namespace ppe
