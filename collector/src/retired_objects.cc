#include "retired_objects.h"

#include "image.h"
#include "ppe/core/output_file.h"
#include "proc_maps.h"
#include "ring_sampler.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <sys/mman.h>

namespace ppe {

namespace {

    constexpr size_t kMaxObjectMappings = 64; // mappings of one object (a handful in practice)

    struct Scratch {
        RetiredObjects store;
        MapsScratch maps;
        Mapping closing[kMaxObjectMappings]; // the object's mappings before dlclose
    };

    std::atomic<Scratch*> g_scratch { nullptr };
    pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

    Scratch* scratch()
    {
        Scratch* s = g_scratch.load(std::memory_order_acquire);
        if (s)
            return s;
        void* memory = mmap(nullptr, sizeof(Scratch), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED)
            return nullptr;
        s = static_cast<Scratch*>(memory);
        g_scratch.store(s, std::memory_order_release);
        return s;
    }

    // The mappings of the file `path`, copied out of `maps`; their number.
    size_t mappingsOf(const MapsTable& maps, const char* path, Mapping* out)
    {
        size_t n = 0;
        for (size_t i = 0; i < maps.mappingCount && n < kMaxObjectMappings; ++i) {
            if (maps.mappings[i].path && std::strcmp(maps.paths + maps.mappings[i].path, path) == 0)
                out[n++] = maps.mappings[i];
        }
        return n;
    }

    // The retired object for path and build id, added if new; -1 when the store is full.
    int retiredObjectFor(RetiredObjects& store, const char* path, const uint8_t* buildId, uint32_t buildIdSize)
    {
        const uint32_t count = std::atomic_ref<uint32_t>(store.objectCount).load(std::memory_order_relaxed);
        for (uint32_t i = 0; i < count; ++i) {
            const RetiredObject& o = store.objects[i];
            if (std::strcmp(o.path, path) == 0 && o.buildIdSize == buildIdSize
                && std::memcmp(o.buildId, buildId, buildIdSize) == 0)
                return int(i);
        }
        if (count == kMaxRetiredObjects)
            return -1;
        RetiredObject& o = store.objects[count];
        copyString(o.path, sizeof(o.path), path);
        std::memcpy(o.buildId, buildId, buildIdSize);
        o.buildIdSize = buildIdSize;
        std::atomic_ref<uint32_t>(store.objectCount).store(count + 1, std::memory_order_release);
        return int(count);
    }

    void addHit(RetiredObjects& store, int object, uint64_t fileOffset, uint64_t count)
    {
        const uint32_t n = std::atomic_ref<uint32_t>(store.hitCount).load(std::memory_order_relaxed);
        for (uint32_t i = 0; i < n; ++i) {
            RetiredHit& h = store.hits[i];
            if (h.object == uint32_t(object) && h.fileOffset == fileOffset) {
                std::atomic_ref<uint64_t>(h.count).fetch_add(count, std::memory_order_relaxed);
                return;
            }
        }
        if (object < 0 || n == kMaxRetiredHits) {
            std::atomic_ref<uint64_t>(store.lost).fetch_add(count, std::memory_order_relaxed);
            return;
        }
        store.hits[n] = RetiredHit { uint32_t(object), fileOffset, count };
        std::atomic_ref<uint32_t>(store.hitCount).store(n + 1, std::memory_order_release);
    }

    // Moves the samples in `m` (a mapping that is gone) out of the PC table into the store.
    void retireMapping(RetiredObjects& store, int object, const Mapping& m, PcSlot* pcs)
    {
        for (uint32_t i = 0; i < kPcTableSlots; ++i) {
            const uint64_t pc = std::atomic_ref<uint64_t>(pcs[i].pc).load(std::memory_order_acquire);
            if (pc < m.start || pc >= m.end)
                continue;
            const uint64_t count = std::atomic_ref<uint64_t>(pcs[i].count).exchange(0, std::memory_order_acq_rel);
            if (count)
                addHit(store, object, pc - m.start + m.offset, count);
        }
    }

    bool stillMapped(const MapsTable& maps, const Mapping& m, const char* path)
    {
        const Mapping* now = findMapping(maps, m.start);
        return now && now->path && std::strcmp(maps.paths + now->path, path) == 0 && now->offset == m.offset;
    }

} // namespace

int closeAndRetire(void* handle, int (*realDlclose)(void*), PcSlot* pcs)
{
    const int saved = errno; // the program sees dlclose's errno, not the collector's system calls
    link_map* lm = nullptr;
    if (!pcs || !handle || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld) {
        errno = saved;
        return realDlclose(handle);
    }
    pthread_mutex_lock(&g_lock);
    Scratch* s = scratch();
    MapsTable maps {};
    size_t closing = 0;
    uint8_t buildId[kMaxBuildId];
    uint32_t buildIdSize = 0;
    char path[PATH_MAX];
    // The object's file as /proc/self/maps names it (l_name is what dlopen was given: maybe
    // relative, maybe a symbolic link), found through its dynamic section.
    const Mapping* dynamic = nullptr;
    if (s && readMapsInto(s->maps, &maps) && (dynamic = findMapping(maps, uintptr_t(lm->l_ld))) && dynamic->path) {
        copyString(path, sizeof(path), maps.paths + dynamic->path);
        closing = mappingsOf(maps, path, s->closing);
        for (size_t i = 0; i < closing && !buildIdSize; ++i) {
            if (s->closing[i].offset == 0 && s->closing[i].readable)
                buildIdSize = readBuildIdOfMapping(s->closing[i].start, s->closing[i].end, buildId, kMaxBuildId);
        }
    }
    drainRingsNow(); // samples of the object still in perf-ring's buffers, while it is mapped
    errno = saved;
    const int result = realDlclose(handle);
    const int after = errno;
    // Only what dlclose really unmapped: another handle may keep the object loaded.
    if (result == 0 && closing && readMapsInto(s->maps, &maps)) {
        int object = -2;
        for (size_t i = 0; i < closing; ++i) {
            if (!s->closing[i].executable || stillMapped(maps, s->closing[i], path))
                continue;
            if (object == -2)
                object = retiredObjectFor(s->store, path, buildId, buildIdSize);
            retireMapping(s->store, object, s->closing[i], pcs);
        }
    }
    pthread_mutex_unlock(&g_lock);
    errno = after;
    return result;
}

const RetiredObjects* retiredObjects()
{
    const Scratch* s = g_scratch.load(std::memory_order_acquire);
    return s ? &s->store : nullptr;
}

void forgetRetiredObjects()
{
    if (Scratch* s = g_scratch.load(std::memory_order_acquire)) {
        std::atomic_ref<uint32_t>(s->store.hitCount).store(0, std::memory_order_release);
        std::atomic_ref<uint32_t>(s->store.objectCount).store(0, std::memory_order_release);
        s->store.lost = 0;
    }
    g_lock = PTHREAD_MUTEX_INITIALIZER;
}

} // namespace ppe
