#include "profile_output.h"

#include "blocked_scan.h"
#include "live_state.h"
#include "messages.h"
#include "output_names.h"
#include "ppe/core/histogram.h"
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

struct OutputScratch {
    ProfileRecord snapshot;
    char writeBuffer[kProfileWriteBuffer];
    MapsScratch maps;
    LiveMappings mappings;
    RetiredObjectRecord retired[kMaxRetiredObjects];
    ObjectCountRecord retiredHits[kMaxRetiredHits];
    RawOutside raw;
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

    // The samples of objects dlclose unloaded (retired_objects.h), by file offset, for the reader to
    // give to the loaded object of the same path and build id, if there is one, or to one of their own.
    void addRetiredObjects(OutputScratch* s)
    {
        const RetiredObjects* r = retiredObjects();
        if (!r)
            return;
        ProfileRecord& record = s->snapshot;
        const uint32_t objects = std::atomic_ref<const uint32_t>(r->objectCount).load(std::memory_order_acquire);
        const uint32_t hits = std::atomic_ref<const uint32_t>(r->hitCount).load(std::memory_order_acquire);
        for (uint32_t i = 0; i < objects; ++i)
            s->retired[i]
                = RetiredObjectRecord { r->objects[i].path, r->objects[i].buildId, r->objects[i].buildIdSize };
        record.counts[kUnknown] += std::atomic_ref<const uint64_t>(r->lost).load(std::memory_order_relaxed);
        size_t kept = 0;
        for (uint32_t h = 0; h < hits; ++h) {
            const RetiredHit& hit = r->hits[h];
            const uint64_t count = std::atomic_ref<const uint64_t>(hit.count).load(std::memory_order_relaxed);
            if (count && hit.object >= objects)
                record.counts[kUnknown] += count;
            else if (count)
                s->retiredHits[kept++] = ObjectCountRecord { hit.object, hit.fileOffset, count };
        }
        s->raw.retired = s->retired;
        s->raw.retiredCount = objects;
        s->raw.retiredHits = s->retiredHits;
        s->raw.retiredHitCount = kept;
    }

    // A place where a thread waited as the .ppe names it: in the monitored image by its link-time
    // address, elsewhere by its run-time address, which the reader names by the mappings written.
    CodePlace placeOf(OutputScratch* s, const LiveProfile& live, uint64_t pc)
    {
        const Histogram& h = live.histogram;
        if (!pc)
            return CodePlace {};
        if (pc >= h.imageStart && pc < h.imageEnd)
            return CodePlace { CodePlace::Kind::Image, 0, pc - s->snapshot.loadBias };
        return CodePlace { CodePlace::Kind::Address, 0, pc };
    }

    // Where blocked threads waited (real-time mode), most time first.
    size_t placeBlocked(OutputScratch* s, const LiveProfile& live, bool haveMaps)
    {
        const size_t count = snapshotBlocked(s->rawBlocked, kBlockedSlots);
        for (size_t i = 0; i < count; ++i) {
            const RawBlocked& raw = s->rawBlocked[i];
            BlockedRecord& b = s->blocked[i];
            b = BlockedRecord { raw.syscall, raw.ns, raw.observations, {}, {}, raw.tid };
            if (haveMaps) {
                b.site = placeOf(s, live, raw.site);
                b.caller = placeOf(s, live, raw.caller);
            }
        }
        std::sort(
            s->blocked, s->blocked + count, [](const BlockedRecord& x, const BlockedRecord& y) { return x.ns > y.ns; });
        return count;
    }

    // The samples outside the monitored object as they were taken, with the executable mappings as
    // they are now (the reader attributes them: docs/ppe-format.md), and the blocked places.
    // Returns how many blocked places it wrote to the scratch.
    size_t gatherOutside(OutputScratch* s, const LiveProfile& live)
    {
        const bool haveMaps = readLiveMappings(s->mappings, s->maps);
        s->raw = RawOutside { haveMaps ? &s->mappings : nullptr, live.histogram.pcs, kPcTableSlots };
        addRetiredObjects(s);
        return placeBlocked(s, live, haveMaps);
    }

    // After writing: the samples the reader attributes, counted unknown in the record kept, whose
    // total is then every sample (writtenRecord).
    void countOutside(OutputScratch* s)
    {
        for (size_t i = 0; i < s->raw.pcCount; ++i)
            s->snapshot.counts[kUnknown] += std::atomic_ref<const uint64_t>(s->raw.pcs[i].count).load();
        for (size_t i = 0; i < s->raw.retiredHitCount; ++i)
            s->snapshot.counts[kUnknown] += s->retiredHits[i].count;
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

    // Writes `output` to `path`, or else to the current directory (writeProfileFile).
    int writeOrFallBack(const ProfileOutput& output, OutputScratch* s, const char* path, char* written, bool replacing)
    {
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
    const size_t blocked = gatherOutside(s, live);
    s->scan = blockedScanSummary();
    // Every live thread is listed with its CPU time, a thread that took no sample at all included;
    // one that ran less than a sampling interval is left out unless it was sampled or blocked.
    enrolLiveThreads(serviceThreadId());
    s->threadCount = snapshotThreads(s->threads, kThreadSlots + 1, uint64_t(record.interval) * 100);
    const ProfileOutput output { &record, bins, nullptr, 0, nullptr, 0, s->threads, s->threadCount, s->blocked, blocked,
        blockedScanActive() ? &s->scan : nullptr, &s->raw, live.calls };
    const int error = writeOrFallBack(output, s, path, written, replacing);
    countOutside(s);
    return error;
}

} // namespace ppe
