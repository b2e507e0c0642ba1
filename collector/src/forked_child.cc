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

    // The parent's live file in a deferred child: kept mapped, inaccessible, until the child has a
    // file of its own, because a program this child runs looks in its parent's /proc/PID/maps for a
    // live file to know that it is not the program the user named (output_names.cc; issue 33: a
    // subshell's `sleep` wrote /usr/bin/sleep.ppe). An address and a size: fork copies them.
    void* g_parentsMapping = nullptr;
    size_t g_parentsMappingSize = 0;

    void releaseParentsMapping()
    {
        if (g_parentsMapping)
            munmap(g_parentsMapping, g_parentsMappingSize);
        g_parentsMapping = nullptr;
    }

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
        releaseParentsMapping();
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
    // Kept, but out of the child's reach, unless an ancestor's is kept already (a deferred child's
    // own child: then `parents` is an anonymous copy, which names nothing).
    const size_t size = parents->mappingSize; // read before the page is closed
    if (g_parentsMapping || mprotect(parents, size, PROT_NONE) != 0) {
        munmap(parents, size);
    } else {
        g_parentsMapping = parents;
        g_parentsMappingSize = size;
    }
    restartSamplingInChild();
    return true;
}

} // namespace ppe
