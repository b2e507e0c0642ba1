// The program's calls into the collector: ppe_load/ppe_init/ppe_set/ppe_start/ppe_pause/ppe_stop
// (C, ppe.h) and their Fortran bindings (ppe.f90), and the hooks of the process interposers.
#include "call_paths.h"
#include "checkpoints.h"
#include "collector_state.h"
#include "lifecycle.h"
#include "messages.h"
#include "process_end.h"
#include "retired_objects.h"
#include "service_thread.h"

#pragma GCC visibility push(default)
#include "ppe.h"

#include <cerrno>
#pragma GCC visibility pop
#include "ppe/core/output_file.h"

#include <pthread.h>
#include <unistd.h>

namespace ppe {

namespace {

    struct ControlLock {
        ControlLock() { pthread_mutex_lock(&g_ppe.control); }
        ~ControlLock() { pthread_mutex_unlock(&g_ppe.control); }
        ControlLock(const ControlLock&) = delete;
        ControlLock& operator=(const ControlLock&) = delete;
    };

    bool running() { return g_ppe.phase.load(std::memory_order_acquire) == Phase::Running; }

    int initRange(uintptr_t start, uintptr_t end, unsigned pages)
    {
        ControlLock lock;
        if (!active())
            return -1;
        ObjectImage image;
        if (end <= start || !findImageContaining(start, &image)) {
            say({ "ppe_init: ", Part::hex(start), " - ", Part::hex(end), " is not in a loaded object's code" });
            return -1;
        }
        if (running())
            endPeriod();
        LiveProfile* live
            = prepareLive(image, start - image.bias, end - image.bias, pages ? pages : g_ppe.config.pages);
        if (!live)
            return -1;
        // The previous profile's memory stays mapped: a signal may still be on its way to it.
        g_ppe.live.store(live, std::memory_order_release);
        g_ppe.activeNs = 0;
        announce(*live);
        return 0;
    }

    // The new settings in the profile's record.
    void recordSettings(unsigned interval, int mode)
    {
        ProfileRecord& record = *g_ppe.live.load(std::memory_order_acquire)->histogram.record;
        record.interval = interval;
        record.mode = uint32_t(mode);
        copyString(record.mechanism, sizeof(record.mechanism), mechanismName(g_ppe.mechanism));
    }

    int setSampling(unsigned interval, int mode)
    {
        ControlLock lock;
        if (!active())
            return -1;
        if (interval < kMinInterval || (mode != 0 && mode != 1)) {
            say({ "ppe_set: invalid interval ", Part::dec(interval), " or mode ", Part::dec(uint64_t(mode)),
                "; keeping the current ones" });
            return -1;
        }
        const bool wasRunning = running();
        if (wasRunning)
            endPeriod();
        g_ppe.config.interval = interval;
        g_ppe.config.mode = SampleMode(mode);
        // The collector thread works on its own copy of the descriptor table (service_thread.cc): it
        // leaves while the events are replaced and comes back with a copy that holds the new ones.
        parkServiceThread();
        disarmSampler();
        const bool armed = arm();
        resumeServiceThread();
        if (!armed) {
            g_ppe.phase.store(Phase::Off, std::memory_order_release);
            return -1;
        }
        recordSettings(interval, mode);
        scanBlockedThreadsInRealTime();
        if (wasRunning)
            startPeriod();
        return 0;
    }

    // Runs `step` under the control lock while the collector is active; -1 when it is not.
    template <typename Step> int whileActive(Step step)
    {
        ControlLock lock;
        if (!active())
            return -1;
        step();
        return 0;
    }

    int startSampling()
    {
        return whileActive([] {
            if (g_ppe.phase.load(std::memory_order_acquire) == Phase::Ready)
                startPeriod();
        });
    }

    int pauseSampling()
    {
        return whileActive([] {
            if (running())
                endPeriod();
        });
    }

    int stopSampling()
    {
        return whileActive([] { finish("ppe_stop"); });
    }

    __attribute__((constructor)) void autoStart() { ppe_load(); }

} // namespace

int closeSharedObject(void* handle, int (*realDlclose)(void*))
{
    const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
    if (!live || !active() || live->histogram.record->pid != uint64_t(getpid()))
        return realDlclose(handle);
    const int result = closeAndRetire(handle, realDlclose, live->histogram.pcs);
    const int after = errno; // dlclose's (closeAndRetire keeps the program's errno)
    liveMappingsChanged();
    callPathObjectsChanged(); // another object may come where this one was: its kept rows go
    errno = after;
    return result;
}

} // namespace ppe

extern "C" {

extern void* const ppe_archive_links[]; // archive_links.cc: what a static link must bring along

void ppe_load(void)
{
    // Refers to the table so that linking ppe_load out of libppe.a links the table too.
    asm volatile("" : : "r"(ppe_archive_links));
    static bool loaded = false;
    if (loaded)
        return;
    loaded = true;
    ppe::load();
}

int ppe_init(const void* start, const void* end, unsigned pages)
{
    return ppe::initRange(reinterpret_cast<uintptr_t>(start), reinterpret_cast<uintptr_t>(end), pages);
}

int ppe_set(unsigned interval, int mode) { return ppe::setSampling(interval, mode); }
int ppe_start(void) { return ppe::startSampling(); }
int ppe_pause(void) { return ppe::pauseSampling(); }
int ppe_stop(void) { return ppe::stopSampling(); }

void ppe_init_(const long long* start, const long long* end) { ppe_init_f(start, end, nullptr); }

void ppe_init_f(const long long* start, const long long* end, const int* pages)
{
    ppe::initRange(uintptr_t(*start), uintptr_t(*end), pages && *pages > 0 ? unsigned(*pages) : 0);
}

void ppe_set_(const int* interval, const int* mode) { ppe_set(unsigned(*interval), *mode); }
void ppe_start_(void) { ppe_start(); }
void ppe_pause_(void) { ppe_pause(); }
void ppe_stop_(void) { ppe_stop(); }
}
