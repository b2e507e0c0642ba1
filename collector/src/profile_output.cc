#include "profile_output.h"

#include "blocked_scan.h"
#include "image.h"
#include "messages.h"
#include "output_names.h"
#include "ppe/core/histogram.h"
#include "ppe/core/object_attribution.h"
#include "ppe/core/output_file.h"
#include "ppe/core/ppe_writer.h"
#include "proc_maps.h"
#include "retired_objects.h"
#include "service_thread.h"
#include "threads.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr size_t kMaxObjects = 1024;

} // namespace

struct OutputScratch {
    ProfileRecord snapshot;
    char writeBuffer[kProfileWriteBuffer];
    MapsScratch maps;
    ObjectInfo objects[kMaxObjects];
    uint32_t objectPath[kMaxObjects]; // arena offset of each object's path
    uint8_t buildIds[kMaxObjects][kMaxBuildId];
    ObjectCountRecord hits[kPcTableSlots + kMaxRetiredHits];
    ThreadRecord threads[kThreadSlots + 1];
    size_t threadCount;
    RawBlocked rawBlocked[kBlockedSlots];
    BlockedRecord blocked[kBlockedSlots];
    ScanSummary scan;
};

OutputScratch* createOutputScratch()
{
    void* memory = mmap(nullptr, sizeof(OutputScratch), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return memory == MAP_FAILED ? nullptr : static_cast<OutputScratch*>(memory);
}

const ProfileRecord& writtenRecord(const OutputScratch* scratch) { return scratch->snapshot; }

std::span<const ThreadRecord> writtenThreads(const OutputScratch* scratch)
{
    return { scratch->threads, scratch->threadCount };
}

namespace {

    struct Attribution {
        OutputScratch* s;
        MapsTable maps;
        ObjectTable t;
    };

    Attribution attribution(OutputScratch* s)
    {
        return Attribution { s, {},
            ObjectTable { s->objects, s->objectPath, s->buildIds, kMaxObjects, 0, s->hits, 0 } };
    }

    // The object and category of an outside PC: core's rules (object_attribution.h) on the mapping
    // that holds it now.
    void attribute(Attribution& a, const LiveProfile& live, uint64_t pc, uint64_t count)
    {
        const Mapping* m = findMapping(a.maps, pc);
        const PcPlace place { m ? a.maps.paths + m->path : nullptr, m ? m->path : 0,
            m ? pc - m->start + m->offset : 0 };
        attributeOutsidePc(a.s->snapshot, a.t, place, pc < live.histogram.runStart, count);
    }

    // The samples of objects dlclose unloaded (retired_objects.h), by file offset: with the loaded
    // object of the same path and build id if there is one (loaded again), else as objects of their own.
    void addRetiredObjects(Attribution& a)
    {
        const RetiredObjects* r = retiredObjects();
        if (!r)
            return;
        ProfileRecord& record = a.s->snapshot;
        const uint32_t objects = std::atomic_ref<const uint32_t>(r->objectCount).load(std::memory_order_acquire);
        const uint32_t hits = std::atomic_ref<const uint32_t>(r->hitCount).load(std::memory_order_acquire);
        int index[kMaxRetiredObjects];
        for (uint32_t i = 0; i < objects; ++i) {
            index[i] = -1;
            for (size_t k = 0; k < a.t.count && index[i] < 0; ++k) {
                const ObjectInfo& o = a.s->objects[k];
                if (std::strcmp(o.path, r->objects[i].path) == 0 && o.buildIdSize == r->objects[i].buildIdSize
                    && std::memcmp(o.buildId, r->objects[i].buildId, o.buildIdSize) == 0)
                    index[i] = int(k);
            }
            if (index[i] < 0 && a.t.count < kMaxObjects) {
                a.s->objectPath[a.t.count] = UINT32_MAX; // no mapping: its build id is known already
                a.s->objects[a.t.count]
                    = ObjectInfo { r->objects[i].path, 0, r->objects[i].buildId, r->objects[i].buildIdSize };
                index[i] = int(a.t.count++);
            }
        }
        record.counts[kUnknown] += std::atomic_ref<const uint64_t>(r->lost).load(std::memory_order_relaxed);
        for (uint32_t h = 0; h < hits; ++h) {
            const RetiredHit& hit = r->hits[h];
            const uint64_t count = std::atomic_ref<const uint64_t>(hit.count).load(std::memory_order_relaxed);
            if (!count)
                continue;
            const int object = hit.object < objects ? index[hit.object] : -1;
            if (object < 0) {
                record.counts[kUnknown] += count;
                continue;
            }
            record.counts[kShared] += count;
            a.s->objects[object].hits += count;
            a.s->hits[a.t.hitCount++] = ObjectCountRecord { uint32_t(object), hit.fileOffset, count };
        }
    }

    // A run-time address as the .ppe names it: in the monitored image, in a shared object (added
    // to the objects if it took no sample), or as it is.
    CodePlace placeOf(Attribution& a, const LiveProfile& live, uint64_t pc)
    {
        const Histogram& h = live.histogram;
        if (!pc)
            return CodePlace {};
        if (pc >= h.imageStart && pc < h.imageEnd)
            return CodePlace { CodePlace::Kind::Image, 0, pc - a.s->snapshot.loadBias };
        const Mapping* m = findMapping(a.maps, pc);
        const int object = m ? objectOfPlace(a.s->snapshot, a.t, PcPlace { a.maps.paths + m->path, m->path, 0 }) : -1;
        if (object < 0)
            return CodePlace { CodePlace::Kind::Address, 0, pc };
        return CodePlace { CodePlace::Kind::Object, uint32_t(object), pc - m->start + m->offset };
    }

    // Where blocked threads waited (real-time mode), most time first.
    size_t placeBlocked(Attribution& a, const LiveProfile& live, bool haveMaps)
    {
        const size_t count = snapshotBlocked(a.s->rawBlocked, kBlockedSlots);
        for (size_t i = 0; i < count; ++i) {
            const RawBlocked& raw = a.s->rawBlocked[i];
            BlockedRecord& b = a.s->blocked[i];
            b = BlockedRecord { raw.syscall, raw.ns, raw.observations, {}, {}, raw.tid };
            if (haveMaps) {
                b.site = placeOf(a, live, raw.site);
                b.caller = placeOf(a, live, raw.caller);
            }
        }
        std::sort(a.s->blocked, a.s->blocked + count,
            [](const BlockedRecord& x, const BlockedRecord& y) { return x.ns > y.ns; });
        return count;
    }

    void readObjectBuildIds(Attribution& a)
    {
        for (size_t i = 0; i < a.t.count; ++i) {
            for (size_t k = 0; k < a.maps.mappingCount; ++k) {
                const Mapping& m = a.maps.mappings[k];
                if (m.path != a.s->objectPath[i] || m.offset != 0 || !m.readable)
                    continue;
                a.s->objects[i].buildIdSize = readBuildIdOfMapping(m.start, m.end, a.s->buildIds[i], kMaxBuildId);
                break;
            }
        }
    }

    // Returns how many blocked places it wrote to the scratch.
    size_t attributeOutsidePcs(Attribution& a, const LiveProfile& live)
    {
        const bool haveMaps = readMapsInto(a.s->maps, &a.maps);
        for (uint32_t i = 0; i < kPcTableSlots; ++i) {
            const PcSlot& slot = live.histogram.pcs[i];
            const uint64_t count = std::atomic_ref<const uint64_t>(slot.count).load(std::memory_order_relaxed);
            if (!count)
                continue;
            if (!haveMaps) {
                a.s->snapshot.counts[kUnknown] += count;
                continue;
            }
            attribute(a, live, slot.pc, count);
        }
        const size_t blocked = placeBlocked(a, live, haveMaps);
        readObjectBuildIds(a);
        addRetiredObjects(a);
        sortObjectHits(a.t);
        return blocked;
    }

    uint64_t microseconds(const timeval& t) { return uint64_t(t.tv_sec) * 1'000'000 + uint64_t(t.tv_usec); }

    void fillTimes(ProfileRecord& record, uint64_t activeUs, uint64_t wallUs)
    {
        rusage usage {};
        getrusage(RUSAGE_SELF, &usage);
        record.cpuUserUs = microseconds(usage.ru_utime);
        record.cpuSystemUs = microseconds(usage.ru_stime);
        record.endTime = int64_t(time(nullptr));
        record.activeUs = activeUs;
        record.wallUs = wallUs;
    }

    // The same file name in the current directory (absolute where it fits, for the message), cut to
    // kFallbackNameBytes (keeping a short extension) when it is too long for a file system with room
    // for its backups' ".~N~".
    constexpr size_t kFallbackNameBytes = 200;

    void inCurrentDirectory(const char* path, char* out)
    {
        const char* name = path;
        for (const char* p = path; *p; ++p) {
            if (*p == '/')
                name = p + 1;
        }
        char cut[kFallbackNameBytes + 1];
        const size_t length = std::strlen(name);
        if (length > kFallbackNameBytes) {
            const char* dot = std::strrchr(name, '.');
            const size_t tail = size_t(name + length - (dot ? dot : name));
            const size_t extension = dot && dot != name && tail <= 16 ? tail : 0;
            copyString(cut, kFallbackNameBytes - extension + 1, name);
            copyString(cut + kFallbackNameBytes - extension, extension + 1, name + length - extension);
            name = cut;
        }
        // getcwd with a buffer is the getcwd system call: no allocation.
        if (!getcwd(out, PATH_MAX) || std::strlen(out) + 1 + std::strlen(name) >= PATH_MAX)
            out[0] = '\0';
        else if (std::strcmp(out, "/") != 0)
            copyString(out + std::strlen(out), 2, "/");
        copyString(out + std::strlen(out), PATH_MAX - std::strlen(out), name);
    }

    // Whether `path` lies in the current directory, which then cannot take what `path`'s directory
    // refused (another user's node at the name, when the program runs in the shared directory).
    bool inTheCurrentDirectory(const char* path)
    {
        char directory[PATH_MAX];
        copyString(directory, sizeof(directory), path);
        char* slash = std::strrchr(directory, '/');
        if (!slash)
            return true;
        slash[slash == directory ? 1 : 0] = '\0';
        struct stat there { };
        struct stat here { };
        return stat(directory, &there) == 0 && stat(".", &here) == 0 && there.st_dev == here.st_dev
            && there.st_ino == here.st_ino;
    }

    // Puts 8 random hex digits before the extension of the file name in `path` (NAME.ppe ->
    // NAME.1a2b3c4d.ppe): a fallback name nobody could plant a node at beforehand. The same digits
    // all the process's life, so that its checkpoints replace their own fallback.
    void addRandomPart(char* path)
    {
        static uint32_t bits; // written only by the one writer at a time (Collector::writing)
        while (!bits)
            bits = uint32_t(unguessableBits());
        char* name = std::strrchr(path, '/');
        name = name ? name + 1 : path;
        char* dot = std::strrchr(name, '.');
        char* at = dot && dot != name ? dot : name + std::strlen(name);
        const size_t tail = std::strlen(at);
        if (size_t(at - path) + 9 + tail >= PATH_MAX)
            return;
        std::memmove(at + 9, at, tail + 1);
        at[0] = '.';
        for (int i = 0; i < 8; ++i)
            at[1 + i] = "0123456789abcdef"[(bits >> (28 - 4 * i)) & 15];
    }

    // A checkpoint is written while samples keep coming: its bins are copied first and the in-range
    // total is theirs, so that the snapshot adds up (readers check that it does).
    class FrozenBins {
    public:
        FrozenBins() = default;
        FrozenBins(const FrozenBins&) = delete;
        FrozenBins& operator=(const FrozenBins&) = delete;
        ~FrozenBins()
        {
            if (m_bins)
                munmap(m_bins, m_size);
        }

        const uint32_t* freeze(ProfileRecord& record, const uint32_t* live)
        {
            m_size = size_t(record.layout.bytes());
            void* memory = mmap(nullptr, m_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (memory == MAP_FAILED)
                return nullptr;
            m_bins = static_cast<uint32_t*>(memory);
            uint64_t binned = 0;
            for (uint64_t i = 0; i < record.layout.count; ++i) {
                m_bins[i] = std::atomic_ref<const uint32_t>(live[i]).load(std::memory_order_relaxed);
                binned += m_bins[i];
            }
            record.counts[kInRange] = binned + record.saturated;
            return m_bins;
        }

    private:
        uint32_t* m_bins = nullptr;
        size_t m_size = 0;
    };

    int writeTo(const char* path, const ProfileOutput& output, char* buffer, bool replacing, OutputName name,
        const char** refusal)
    {
        OutputFile file;
        int error = openOutput(path, &file, name);
        *refusal = file.refusal;
        if (error)
            return error;
        error = writeProfile(file.fd, output, buffer, kProfileWriteBuffer);
        if (error) {
            abandonOutput(&file);
            return error;
        }
        return commitOutput(&file, replacing);
    }

} // namespace

int writeProfileFile(const LiveProfile& live, OutputScratch* s, const char* path, const char* reason,
    ProfileStatus status, uint64_t activeUs, uint64_t wallUs, char* written, bool replacing)
{
    std::memcpy(&s->snapshot, live.histogram.record, sizeof(ProfileRecord));
    ProfileRecord& record = s->snapshot;
    copyString(record.endReason, sizeof(record.endReason), reason);
    record.status = uint32_t(status);
    fillTimes(record, activeUs, wallUs);
    FrozenBins frozen;
    const uint32_t* bins = live.histogram.bins;
    if (status == ProfileStatus::Checkpoint && !(bins = frozen.freeze(record, bins)))
        return ENOMEM;
    Attribution a = attribution(s);
    const size_t blocked = attributeOutsidePcs(a, live);
    s->scan = blockedScanSummary();
    // Every live thread is listed with its CPU time, a thread that took no sample at all included;
    // one that ran less than a sampling interval is left out unless it was sampled or blocked.
    enrolLiveThreads(serviceThreadId());
    s->threadCount = snapshotThreads(s->threads, kThreadSlots + 1, uint64_t(record.interval) * 100);
    const ProfileOutput output { &record, bins, s->objects, a.t.count, s->hits, a.t.hitCount, s->threads,
        s->threadCount, s->blocked, blocked, blockedScanActive() ? &s->scan : nullptr };
    copyString(written, PATH_MAX, path);
    // A device or FIFO only where the user named it (PPE_OUT): never at a name made up here.
    const OutputName name = userNamedOutput(path) ? OutputName::Given : OutputName::MadeUp;
    const char* refusal = nullptr;
    const int error = writeTo(written, output, s->writeBuffer, replacing, name, &refusal);
    if (!error)
        return 0;
    // Whatever kept the file from its directory (no permission, a name too long, a full disk,
    // another user's node at the name), the profile is not lost: the user guide's promise.
    inCurrentDirectory(path, written);
    if (inTheCurrentDirectory(path))
        addRandomPart(written); // the same name here would be refused again
    say({ "cannot write ", path, " (", strerrordesc_np(error), refusal ? ": " : "", refusal ? refusal : "",
        "): writing to the current directory as ", written });
    // A backup of what is there, unless it is this process's own earlier fallback (checkpoints
    // every second must not leave a backup each).
    static char fellBackTo[PATH_MAX]; // written only by the one writer at a time (Collector::writing)
    const bool own = std::strcmp(fellBackTo, written) == 0;
    const int fallback = writeTo(written, output, s->writeBuffer, own, OutputName::MadeUp, &refusal);
    if (!fallback)
        copyString(fellBackTo, sizeof(fellBackTo), written);
    return fallback;
}

} // namespace ppe
