// A profile as read from a .ppe file (format: docs/ppe-format.md).
#pragma once

#include "ppe/core/profile_record.h"
#include "ppe/profile/sampling_mechanism.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ppe {

struct Bin {
    uint64_t address; // link-time address of the bin's first byte
    uint64_t count;
};

// The samples a shared object took at one offset of its file.
struct ObjectSamples {
    uint64_t fileOffset;
    uint64_t count;
};

struct SharedObject {
    std::string path;
    std::string buildId; // lower-case hex, "" if none
    uint64_t hits = 0;
    std::vector<ObjectSamples> hitsByOffset; // ascending offsets
};

// A place in the code (the .ppe's `image+0x..`, `ID+0x..` or `0x..`).
struct CodeLocation {
    enum class Kind { None, Image, Object, Address };
    Kind kind = Kind::None;
    size_t object = 0; // index into Profile::objects (Kind::Object)
    uint64_t address = 0; // link-time address (Image), file offset (Object), run-time address (Address)
};

// Where threads waited in the kernel (real-time mode).
struct BlockedPlace {
    int64_t syscall = 0; // -1: blocked outside a system call (a page fault); -2: other calls (table full)
    double seconds = 0; // thread-seconds this place stands for
    uint64_t observations = 0; // scans that found a thread here
    CodeLocation site; // the user PC the kernel reported (usually in the C library)
    CodeLocation caller; // the call into the monitored image above it on the stack
    uint64_t tid = 0; // the thread that waited there; 0: unknown (older profiles, merges, a full table)
};

struct ThreadSamples {
    uint64_t tid = 0;
    uint64_t samples = 0;
    double cpuSeconds = 0; // when last read; 0: unknown
    double blockedSeconds = 0;
    std::string name;
};

// How blocked threads were sampled (real-time mode): scans of /proc/self/task.
struct BlockingScan {
    uint64_t scans = 0;
    double period = 0; // mean seconds between scans
    double cost = 0; // CPU seconds the collector thread spent on them
};

// A section of code of the monitored image as its section headers give it (link-time).
struct ImageSection {
    std::string name; // ".text", ".init", ...
    uint64_t address = 0;
    uint64_t size = 0;
};

// Issue 39: the calling-context tree of the samples (format version 3's `call-paths` and `call-node`
// records). Node 0 is the root; a node's parent comes before it; a sample counts once, in the
// `self` of the node its path ends at (its sampled PC).
struct CallPathNode {
    uint32_t parent = 0;
    CodeLocation place; // the sampled PC at a leaf, a return address above it; None at the root and a marker
    uint64_t marker = 0; // non-zero: the path stopped short of the outermost frame, and why (call_tree.h)
    uint64_t self = 0;
};

struct CallPaths {
    uint64_t samples = 0; // samples with a path
    uint64_t cut = 0; // of those, samples whose path did not fit the collector's tree (counted where it was cut)
    std::vector<CallPathNode> nodes; // empty: no call paths
};

struct Profile {
    uint32_t version = 0;
    std::string producer;
    ProfileStatus status = ProfileStatus::Complete;
    std::string endReason;
    std::string host, cpu, arch, os;
    uint64_t pid = 0, parentPid = 0;
    std::optional<uint64_t> rank; // the MPI or Slurm rank, when the collector knew it
    int64_t startTime = 0, endTime = 0; // seconds since the epoch, UTC
    std::string image;
    std::string buildId; // lower-case hex, "" if none
    std::vector<std::string> command;

    uint64_t loadBias = 0;
    uint64_t rangeStart = 0, rangeEnd = 0; // link-time [start, end)
    std::vector<ImageSection> codeSections; // empty in files written before the record existed
    SamplingMechanism mechanism;
    SampleMode mode = SampleMode::Real;
    uint64_t interval = 0; // 100 ns units
    double requestedRate = 0, achievedRate = 0; // Hz
    uint32_t granularity = 1;
    uint32_t binWidth = 1;
    uint64_t binCount = 0;
    uint64_t maxBin = 0;
    double cpuUser = 0, cpuSystem = 0, wallTime = 0, activeTime = 0; // seconds
    int64_t cpuTimeAsOf = 0; // when cpuUser/cpuSystem were taken (seconds, UTC); 0: at endTime
    double collectorCpuTime = 0; // the collector thread's own CPU seconds (part of cpuUser + cpuSystem); 0: not known
    uint64_t ticks = 0;
    // itimer-prof's samples of several intervals each: their weights squared, summed (0: not written,
    // before issue 35's weights or of another mechanism).
    uint64_t weightSquares = 0;
    std::array<uint64_t, kCategoryCount> counts {};
    uint64_t saturated = 0;
    uint64_t total = 0;
    // perf-ring's samples the drain could not take: the kernel lost them (a ring was full), or
    // they were another process's (not in any count). 0 in files without the record.
    uint64_t ringLost = 0, ringForeign = 0;
    uint64_t ringThrottled = 0; // the kernel's throttle records (perf-ring)
    bool ringThrottledKnown = false; // the profile counts them (written since issue 35)

    // A remote sampler's records (ppe-arc, docs/ppe-format.md "Remote sampling"); empty otherwise.
    std::string remoteServer, remoteTarget, remoteMode, remotePc, remoteInterrupt, remoteError;
    uint64_t intrusionStops = 0;
    double stopMean = 0, stopP90 = 0; // seconds the target was stopped per sample
    double stoppedTime = 0, stoppedRatio = 0; // seconds stopped in all, and that ÷ wall time

    std::vector<SharedObject> objects;
    std::vector<Bin> bins; // non-zero bins, ascending addresses
    std::vector<ThreadSamples> threads;
    std::vector<BlockedPlace> blocked; // decreasing seconds
    std::optional<BlockingScan> scan; // present when blocked threads were sampled
    CallPaths calls;

    // A merge of several processes' profiles (ppeout on a directory or a pattern; formatter's
    // merge_profiles.h): how many, their pids in short ("1201-1204, 1310") and the end reasons
    // counted ("exit (3), signal 15 (1)"). 1 and "" for one profile.
    uint64_t mergedProfiles = 1;
    std::string mergedPids;
    std::string mergedEndReasons;
    // Files of the merge left out because they could not be read (damaged, truncated, not a
    // profile), each with a warning; `ppeout --strict` makes such a file an error instead.
    std::vector<std::string> skippedProfiles;

    uint64_t inRange() const { return counts[kInRange]; }
    // The factor by which samples of several intervals each widen a share's binomial variance:
    // itimer-prof's stand for their threads' CPU time since their last sample, and a share of
    // `total` intervals has the variance of one of total² / Σ w² samples (their effective number),
    // so the factor is Σ w² / total (without the squares, total over the samples taken: weights
    // taken as equal). 1 for every other mechanism, whose samples are one interval each.
    double sampleWeight() const
    {
        if (weightSquares > total && total > 0)
            return double(weightSquares) / double(total);
        const uint64_t taken = samplesTaken(mechanism.kind(), ticks, total);
        return taken > 0 && total > taken ? double(total) / double(taken) : 1.0;
    }
};

} // namespace ppe
