// The state of one profile as a sampler keeps it: plain data, no pointers, so that it can live at
// the head of a shared or file-backed mapping and be written by a signal handler. Counters are
// updated with std::atomic_ref. The in-process collector and the remote (ARC) sampler both fill
// one of these and hand it to writeProfile().
#pragma once

#include "ppe/core/bin_layout.h"

#include <climits>
#include <cstdint>

namespace ppe {

// Where a sample's PC was. Every sample lands in exactly one category.
enum Category : unsigned {
    kInRange, // inside the monitored range: counted in a bin
    kBelow, // in the main image, below the monitored range (PPE: underflow)
    kAbove, // in the main image, above the monitored range (PPE: overflow)
    kShared, // in a shared object (PPE: system), per object in the file
    kVdso, // in the kernel's vDSO
    kAnon, // in anonymous executable memory (JIT, trampolines)
    kUnknown, // in no mapping known at the end of the run (e.g. an unloaded library)
    kLost, // outside the range but not attributable (the per-address table was full)
    kCategoryCount
};

// The name used in the .ppe file: "in-range", "below", ...
const char* categoryName(unsigned category);

enum class SampleMode : uint32_t { Real = 0, Cpu = 1 };

// How a profile came to be written.
enum class ProfileStatus : uint32_t {
    Complete, // written at the end of the run
    Checkpoint, // a periodic snapshot of a run still going
    Recovered, // rebuilt from the live mapping of a run that died without writing
};
const char* statusName(ProfileStatus status);

inline constexpr uint32_t kFormatVersion = 1;
inline constexpr uint32_t kMaxBuildId = 64;
inline constexpr uint32_t kMaxCodeSections = 16;

// A section of code of the monitored image (SHF_ALLOC and SHF_EXECINSTR), from its section headers:
// what a linker map of the same build must show (the .ppe's "code-section" record).
struct CodeSection {
    char name[24]; // ".text", ".init", ".plt", ...
    uint64_t address; // link-time
    uint64_t size;
};

struct ProfileRecord {
    // What ran, where and when.
    char producer[32];
    char host[128];
    char cpu[128];
    char arch[32];
    char os[128];
    char image[PATH_MAX];
    uint8_t buildId[kMaxBuildId];
    uint32_t buildIdSize;
    uint32_t commandSize; // bytes used in `command`
    char command[8192]; // the arguments, each terminated by '\0'
    uint64_t pid;
    uint64_t parentPid;
    int64_t startTime; // seconds since the epoch (UTC)
    int64_t endTime;

    // What was sampled and how.
    uint64_t loadBias; // run-time address = link-time address + loadBias
    BinLayout layout; // in link-time addresses
    uint32_t granularity; // smallest instruction of the target, bytes
    uint32_t mode; // SampleMode
    uint64_t interval; // requested interval, 100 ns units (PPE_INT)
    char mechanism[32]; // "perf-task-clock", "itimer-prof", "posix-timer", "gdb-remote", ...

    // What it cost and how much came in.
    uint64_t cpuUserUs; // process CPU time over the run
    uint64_t cpuSystemUs;
    uint64_t wallUs; // wall time over the run
    uint64_t activeUs; // time while sampling was on: CPU time (mode 1) or wall time (mode 0)
    uint64_t ticks; // timer expirations (mode 0; includes overruns)
    uint64_t counts[kCategoryCount];
    uint64_t saturated; // in-range samples whose bin had reached its maximum (not in any bin)
    uint32_t status; // ProfileStatus
    char endReason[32]; // "exit", "signal 15", "ppe_stop", ...

    // Appended after version 1's first fields (issue 18).
    uint32_t codeSectionCount; // entries used in codeSections
    CodeSection codeSections[kMaxCodeSections]; // in header order
    int64_t cpuTimeAsOf; // CLOCK_REALTIME seconds when cpuUserUs/cpuSystemUs were taken; 0: at endTime

    // Appended for parallel jobs (issue 20): the process's MPI or Slurm rank, when rankKnown.
    uint32_t rankKnown;
    // Appended in the padding before `rank` (issue 34; the record's size and a live file's layout
    // are unchanged): the collector thread's own CPU time in ms, 0 when not known.
    uint32_t collectorCpuMs;
    uint64_t rank;

    // Appended for the perf-ring mechanism (issue 22): samples the drain could not take.
    uint64_t ringLost; // the kernel's PERF_RECORD_LOST: a ring was full
    uint64_t ringForeign; // samples of other processes (forked children that inherited the events)
    // Appended (issue 35): the kernel's PERF_RECORD_THROTTLE records, each an event it stopped
    // sampling for the rest of a tick (kernel.perf_event_max_sample_rate).
    uint64_t ringThrottled;
    // Appended (issue 35): itimer-prof's samples stand for several intervals each (their thread's
    // CPU time since its last, counted in `counts`, the samples taken in `ticks`); the sum of their
    // weights squared gives the statistical errors of samples of unequal weights.
    uint64_t weightSquares;
};

// The sum of all categories.
uint64_t totalSamples(const ProfileRecord& record);

} // namespace ppe
