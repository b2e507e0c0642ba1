// The collector's settings from the environment, with PPE's rules: every value must be a positive
// decimal integer; an error keeps the default and prints one warning.
#pragma once

#include "ppe/core/limits.h"
#include "ppe/core/profile_record.h"

#include <cstdint>

namespace ppe {

enum class TimerChoice { Auto, Perf, Itimer, Posix, Ring };

struct Config {
    bool enabled = false; // PPE_ON is set
    uint64_t pages = kDefaultPages; // PPE_MEM
    uint64_t interval = kDefaultInterval; // PPE_INT, 100 ns units
    SampleMode mode = SampleMode::Real; // PPE_MODE
    TimerChoice timer = TimerChoice::Auto; // PPE_TIMER
    // For tests that force perf-ring's buffers to overflow: PPE_RING_PAGES, data pages per ring (0: sized
    // for the rate), and PPE_RING_DRAIN_MS, a fixed drain period (0: adapted to what the drains find).
    uint64_t ringPages = 0;
    uint64_t ringDrainMs = 0;
    // Issue 39: PPE_CALLS is set: a call path with each sample (perf-ring only), from PPE_CALL_STACK
    // bytes of stack, in a tree of PPE_CALL_NODES nodes.
    bool calls = false;
    uint64_t callStack = 8192;
    uint64_t callNodes = 1u << 18;
    uint64_t checkpoint = 0; // PPE_CHECKPOINT: seconds between snapshots, 0 = none
    int snapshotSignal = 0; // PPE_SNAPSHOT_SIGNAL: a checkpoint when this signal arrives, 0 = none
    const char* output = nullptr; // PPE_OUT (points into the environment)
    // PPE_DEFAULT_DIR: without PPE_OUT, the directory of PROG.ppe instead of the executable's (the
    // launcher sets it to its current directory); nullptr: beside the executable.
    const char* defaultDirectory = nullptr;
    uint64_t launchedPid = 0; // PPE_LAUNCHED: the process `ppe` started (0: not under the launcher)
    bool children = true; // PPE_CHILDREN=0: the programs it runs are not profiled
    // PPE_OBJECT: the shared object to monitor instead of the executable, by file name or soname
    // (points into the environment); nullptr: the executable.
    const char* object = nullptr;
    // The process's rank in a parallel job: the first of OMPI_COMM_WORLD_RANK, PMI_RANK, PMIX_RANK,
    // SLURM_PROCID that is a decimal number (points into the environment); nullptr: not known.
    const char* rank = nullptr;
    const char* job = nullptr; // the batch job id: SLURM_JOB_ID or PBS_JOBID; nullptr: none
};

// Reads PPE_ON, PPE_OUT, PPE_MEM, PPE_INT, PPE_MODE, PPE_TIMER, PPE_CALLS, PPE_CALL_STACK, PPE_CALL_NODES,
// PPE_CHECKPOINT, PPE_SNAPSHOT_SIGNAL,
// PPE_OBJECT, PPE_RING_PAGES, PPE_RING_DRAIN_MS, the launcher's PPE_LAUNCHED, PPE_CHILDREN and PPE_DEFAULT_DIR, and the
// MPI and batch system's rank and job id through `lookup` (getenv in the collector; a table in tests), warning once per
// bad value through `warn`.
using LookupFn = const char* (*)(const char* name);
using WarnFn = void (*)(const char* name, const char* value, const char* problem, const char* kept);
Config readConfig(LookupFn lookup, WarnFn warn);

// The signal PPE_SNAPSHOT_SIGNAL names ("USR2", "SIGUSR2", "12", "RTMIN+2"), or 0 when it names
// none the collector can take: only USR1, USR2, URG, WINCH, PWR and the real-time signals below
// SIGRTMAX-3 (the collector's), never an ending, fault, job-control or sampling signal.
int parseSnapshotSignal(const char* text);

} // namespace ppe
