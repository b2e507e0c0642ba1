#include "call_paths.h"

#include "cfi_cache.h"
#include "collector_state.h"
#include "live_profile.h"
#include "proc_maps.h"

#include <atomic>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

namespace ppe {

namespace {

    // A missing object is looked for again at most this often (a sample in JIT code would
    // otherwise read /proc/self/maps at every drain).
    constexpr uint64_t kRefreshNs = 100'000'000;

    struct CallPaths {
        UnwindState* unwind = nullptr;
        MapsScratch* maps = nullptr;
        uint64_t refreshedNs = 0;
        std::atomic<bool> changed { false };
        std::atomic<bool> busy { false }; // an unwind under way
        uint64_t pcs[kMaxCallFrames];
    };

    CallPaths g_calls;

    bool readProcess(const void*, uint64_t address, void* out, size_t size)
    {
        iovec local { out, size };
        iovec remote { reinterpret_cast<void*>(address), size };
        return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == ssize_t(size);
    }

    // The sampled stack, as the kernel copied it: [sp, sp + stackSize).
    bool readStack(const void* context, uint64_t address, void* out, size_t size)
    {
        const auto* user = static_cast<const UserState*>(context);
        if (address < user->sp || address - user->sp > user->stackSize || size > user->stackSize - (address - user->sp))
            return false;
        __builtin_memcpy(out, user->stack + (address - user->sp), size);
        return true;
    }

    void refreshObjects()
    {
        MapsTable maps {};
        if (readMapsInto(*g_calls.maps, &maps))
            refreshUnwindObjects(*g_calls.unwind, maps);
        g_calls.refreshedNs = nowNs(CLOCK_MONOTONIC);
    }

    void* mapZeroed(size_t bytes)
    {
        void* memory = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return memory == MAP_FAILED ? nullptr : memory;
    }

    UnwindResult unwind(const UserState& user)
    {
        const FrameRegisters regs { user.pc, user.sp, user.fp, user.lr, user.lrValid };
        const MemoryReader stack { readStack, &user };
        return unwindPath(cachedRules(*g_calls.unwind), stack, regs, g_calls.pcs, kMaxCallFrames - 1);
    }

} // namespace

bool startCallPaths(const char** why)
{
    if (g_calls.unwind && g_calls.maps)
        return true; // an earlier arming's (ppe_set)
    auto* unwind = static_cast<UnwindState*>(mapZeroed(sizeof(UnwindState)));
    auto* maps = static_cast<MapsScratch*>(mapZeroed(sizeof(MapsScratch)));
    if (!unwind || !maps) {
        if (unwind)
            munmap(unwind, sizeof(UnwindState));
        if (maps)
            munmap(maps, sizeof(MapsScratch));
        *why = "cannot map memory for the unwinder";
        return false;
    }
    unwind->code = MemoryReader { readProcess, nullptr };
    g_calls.maps = maps;
    g_calls.unwind = unwind;
    refreshObjects();
    return true;
}

namespace {

    void takeOwnedPath(const UserState& user, LiveProfile& live)
    {
        if (g_calls.changed.exchange(false, std::memory_order_acquire)) { // dlclose
            forgetUnwindRows(*g_calls.unwind);
            refreshObjects();
        }
        UnwindResult r = unwind(user);
        if (r.end == UnwindEnd::NoObject && nowNs(CLOCK_MONOTONIC) - g_calls.refreshedNs > kRefreshNs) {
            refreshObjects(); // a library loaded since
            r = unwind(user);
        }
        if (r.end != UnwindEnd::Outermost)
            g_calls.pcs[r.frames++] = kShortPathBase + uint64_t(r.end); // room kept for it
        addCallPath(live.calls, g_calls.pcs, r.frames, 1);
    }

} // namespace

void takeCallPath(const UserState& user, pid_t)
{
    LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
    if (!g_calls.unwind || !live || !live->calls.header)
        return;
    // One unwind at a time: a drain that gave up waiting for another (ring_drain.cc holdDrain) must
    // not share the unwinder's state or the tree with it. Its sample keeps no path (the flat
    // profile has it; "samples with a call path" says how many do).
    if (g_calls.busy.exchange(true, std::memory_order_acquire))
        return;
    takeOwnedPath(user, *live);
    g_calls.busy.store(false, std::memory_order_release);
}

void callPathObjectsChanged() { g_calls.changed.store(true, std::memory_order_release); }

} // namespace ppe
