#include "forked_child.h"

#include "blocked_scan.h"
#include "collector_state.h"
#include "lifecycle.h"
#include "messages.h"
#include "output_names.h"
#include "retired_objects.h"
#include "ring_sampler.h"
#include "threads.h"

#include <ctime>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe {

namespace {

    // The child's own live file, where the parent had one (else its private copy stays).
    void ownLiveFile()
    {
        LiveProfile* copy = g_ppe.live.load(std::memory_order_acquire);
        if (!g_ppe.livePath[0])
            return;
        const int fd = openLiveFile(g_ppe.outputPath, g_ppe.livePath);
        LiveProfile* own = cloneEmpty(*copy, fd);
        if (fd >= 0)
            close(fd);
        if (!own) {
            say({ "no live file for the forked child ", g_ppe.outputPath, ": a SIGKILL would lose its profile" });
            return;
        }
        g_ppe.live.store(own, std::memory_order_release);
        munmap(copy, copy->mappingSize);
    }

    // On the child's collector thread, when its rings open: from now on its profile is its own.
    void adoptForkedChild()
    {
        ownLiveFile();
        ProfileRecord& r = *g_ppe.live.load(std::memory_order_acquire)->histogram.record;
        forgetRetiredObjects();
        clearThreads();
        clearBlockedScan();
        g_ppe.activeNs = 0;
        g_ppe.periodStartNs = nowNs(activeClock());
        g_ppe.wallStartNs = nowNs(CLOCK_MONOTONIC);
        r.parentPid = uint64_t(getppid());
        r.startTime = int64_t(time(nullptr));
        r.pid = uint64_t(getpid()); // last: from here its exit writes its profile
    }

} // namespace

bool deferForkedChild()
{
    if (g_ppe.mechanism != Mechanism::PerfRing)
        return false;
    LiveProfile* parents = g_ppe.live.load(std::memory_order_acquire);
    // Private and empty, the parent's pid kept: nothing the child does reaches the parent's file.
    LiveProfile* copy = cloneEmpty(*parents, -1);
    if (!copy)
        return false;
    if (!deferRingsInChild(adoptForkedChild)) {
        munmap(copy, copy->mappingSize);
        return false;
    }
    g_ppe.live.store(copy, std::memory_order_release);
    munmap(parents, parents->mappingSize);
    restartSamplingInChild();
    return true;
}

} // namespace ppe
