// The collector's state, one per process, shared by its life cycle (lifecycle.cc), its control
// calls (control_api.cc) and its checkpoints (checkpoints.cc).
#pragma once

#include "config.h"
#include "live_profile.h"
#include "profile_output.h"
#include "sampler.h"

#include <atomic>
#include <climits>
#include <cstdint>
#include <ctime>
#include <pthread.h>

namespace ppe {

enum class Phase { Off, Ready, Running, Stopped };

// All zeros: load() reads the environment into g_ppe.config before anything reads it. Config's own
// defaults are not zero, and a non-zero member would put all of g_ppe in .data, copied into every
// process the collector is loaded into.
constexpr Config unreadConfig()
{
    Config config;
    config.pages = 0;
    config.interval = 0;
    config.children = false;
    return config;
}

struct Collector {
    Config config = unreadConfig();
    std::atomic<Phase> phase { Phase::Off };
    std::atomic<LiveProfile*> live { nullptr };
    OutputScratch* finalScratch = nullptr; // the final profile's memory (exit path)
    OutputScratch* checkpointScratch = nullptr; // the collector thread's: never the exit path's
    Mechanism mechanism = Mechanism::None;
    char basePath[PATH_MAX] = {}; // the output name as a template (%p: the pid; output_names.h)
    char outputPath[PATH_MAX] = {};
    char livePath[PATH_MAX] = {}; // the file-backed live profile; "" when anonymous
    uint64_t activeNs = 0; // sampling time accumulated over finished periods
    uint64_t periodStartNs = 0;
    uint64_t wallStartNs = 0;
    std::atomic<bool> writing { false }; // a checkpoint or the final profile is being committed
    bool checkpointWritten = false; // the plain output name holds this run's own checkpoint
    pthread_mutex_t control = PTHREAD_MUTEX_INITIALIZER; // serialises the control calls (never the sampler)
};

extern Collector g_ppe;

// `clock` now in ns. Signal-safe.
uint64_t nowNs(clockid_t clock);

// The clock of active time: monotonic wall time for the POSIX timer's ticks, else process CPU time
// (the CPU-time mechanisms, in both modes). Signal-safe.
clockid_t activeClock();

} // namespace ppe
