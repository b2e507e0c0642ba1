#include "checkpoints.h"

#include "collector_state.h"
#include "initially.h"
#include "live_directory.h"
#include "live_state.h"
#include "service_thread.h"
#include "threads.h"

#include <sys/mman.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr uint64_t kLiveStatePeriodNs = 500'000'000;

    // A checkpoint job that only runs when asked (PPE_SNAPSHOT_SIGNAL without PPE_CHECKPOINT): due
    // once a century.
    constexpr uint64_t kOnRequestOnlyNs = 100ull * 365 * 24 * 3600 * 1'000'000'000;

    MapsScratch* g_liveMaps = nullptr; // the live-state job's reading of /proc/self/maps
    Initially<int, -1> g_liveStateJob;
    Initially<int, -1> g_checkpointJob;

    // On the collector thread: what a recovery of the live file needs, as of now (live_state.h).
    void refreshLiveState(LiveProfile& live, Phase phase)
    {
        const bool running = phase == Phase::Running;
        live.histogram.record->collectorCpuMs = serviceThreadCpuMs(); // for a recovery too
        const uint64_t activeNs = g_ppe.activeNs + (running ? nowNs(activeClock()) - g_ppe.periodStartNs : 0);
        refreshLiveUsage(live, nowNs(CLOCK_MONOTONIC) - g_ppe.wallStartNs, activeNs, running);
        refreshLiveMappings(live, *g_liveMaps);
        refreshLiveThreads(live, uint64_t(live.histogram.record->interval) * 100);
    }

    void keepLiveState(uint64_t)
    {
        const Phase phase = g_ppe.phase.load(std::memory_order_acquire);
        if (phase == Phase::Off || phase == Phase::Stopped || !g_ppe.livePath[0])
            return;
        holdLiveDirectory(g_ppe.livePath); // before a chroot of the program's, at the first run
        // Threads that end before the profile is written are seen too; enrolled first, so that the
        // live file's thread copy has them.
        enrolNewThreads(serviceThreadId());
        refreshLiveState(*g_ppe.live.load(std::memory_order_acquire), phase);
    }

    // The live-state job, when the profile has a live file; false when there is nothing to keep.
    bool addLiveStateJob()
    {
        if (!g_ppe.livePath[0])
            return false;
        void* memory = mmap(nullptr, sizeof(MapsScratch), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (memory == MAP_FAILED)
            return false;
        g_liveMaps = static_cast<MapsScratch*>(memory);
        g_liveStateJob = addServiceJob(keepLiveState, kLiveStatePeriodNs);
        requestServiceJob(g_liveStateJob); // the first refresh as soon as the thread runs
        return g_liveStateJob >= 0;
    }

    // On the collector thread. A checkpoint still being written when the next is due delays it; the
    // service loop then skips what was missed: checkpoints never overlap. Between periods (ppe_pause,
    // or before the first) a checkpoint is the profile so far: a snapshot asked for then is written.
    void checkpoint(uint64_t)
    {
        const Phase phase = g_ppe.phase.load(std::memory_order_acquire);
        if ((phase != Phase::Running && phase != Phase::Ready)
            || g_ppe.writing.exchange(true, std::memory_order_acquire))
            return;
        drainSampler(); // perf-ring's samples so far (on this thread: no drain job runs meanwhile)
        LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        if (g_ppe.livePath[0] && g_liveMaps)
            refreshLiveState(*live, phase);
        if (g_ppe.livePath[0])
            msync(live, live->mappingSize, MS_SYNC);
        const uint64_t activeNs
            = g_ppe.activeNs + (phase == Phase::Running ? nowNs(activeClock()) - g_ppe.periodStartNs : 0);
        live->histogram.record->collectorCpuMs = serviceThreadCpuMs();
        const uint64_t wallUs = (nowNs(CLOCK_MONOTONIC) - g_ppe.wallStartNs) / 1000;
        char written[PATH_MAX];
        if (writeProfileFile(*live, g_ppe.checkpointScratch, g_ppe.outputPath, "checkpoint", ProfileStatus::Checkpoint,
                activeNs / 1000, wallUs, written, g_ppe.checkpointWritten)
            == 0)
            g_ppe.checkpointWritten = true;
        g_ppe.writing.store(false, std::memory_order_release);
    }

} // namespace

bool startCheckpoints(const char** why)
{
    const bool liveState = addLiveStateJob();
    const Config& config = g_ppe.config;
    if (!config.checkpoint && !config.snapshotSignal)
        return !liveState || startServiceThread(why);
    g_ppe.checkpointScratch = createOutputScratch();
    if (!g_ppe.checkpointScratch) {
        *why = "cannot map memory for checkpoints";
        return false;
    }
    g_checkpointJob
        = addServiceJob(checkpoint, config.checkpoint ? config.checkpoint * 1'000'000'000 : kOnRequestOnlyNs);
    if (g_checkpointJob < 0) {
        *why = "no room for the checkpoint job";
        return false;
    }
    return startServiceThread(why);
}

bool restartCheckpointsInChild(const char** why)
{
    g_ppe.writing.store(false, std::memory_order_relaxed); // the parent's writer did not come along
    g_ppe.checkpointWritten = false; // the child writes under its own name
    return restartServiceThreadInChild(why);
}

void liveMappingsChanged() { requestServiceJob(g_liveStateJob); }

void refreshLiveStateNow() { requestServiceJob(g_liveStateJob); }

void requestCheckpoint() { requestServiceJob(g_checkpointJob); }

void endCheckpoints()
{
    stopServiceJobs();
    // A checkpoint finishes in milliseconds; never wait forever (a slow or hung filesystem).
    for (int spins = 0; g_ppe.writing.exchange(true, std::memory_order_acquire) && spins < 2000; ++spins)
        usleep(1000);
}

} // namespace ppe
