// A profile as read from a .ppe file (format: docs/ppe-format.md).
#pragma once

#include "ppe/core/profile_record.h"

#include <array>
#include <cstdint>
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

struct Profile {
    uint32_t version = 0;
    std::string producer;
    ProfileStatus status = ProfileStatus::Complete;
    std::string endReason;
    std::string host, cpu, arch, os;
    uint64_t pid = 0, parentPid = 0;
    int64_t startTime = 0, endTime = 0; // seconds since the epoch, UTC
    std::string image;
    std::string buildId; // lower-case hex, "" if none
    std::vector<std::string> command;

    uint64_t loadBias = 0;
    uint64_t rangeStart = 0, rangeEnd = 0; // link-time [start, end)
    std::string mechanism;
    SampleMode mode = SampleMode::Real;
    uint64_t interval = 0; // 100 ns units
    double requestedRate = 0, achievedRate = 0; // Hz
    uint32_t granularity = 1;
    uint32_t binWidth = 1;
    uint64_t binCount = 0;
    uint64_t maxBin = 0;
    double cpuUser = 0, cpuSystem = 0, wallTime = 0, activeTime = 0; // seconds
    uint64_t ticks = 0;
    std::array<uint64_t, kCategoryCount> counts {};
    uint64_t saturated = 0;
    uint64_t total = 0;

    // A remote sampler's records (ppe-arc, docs/ppe-format.md "Remote sampling"); empty otherwise.
    std::string remoteServer, remoteTarget, remoteMode, remotePc, remoteInterrupt, remoteError;
    uint64_t intrusionStops = 0;
    double stopMean = 0, stopP90 = 0; // seconds the target was stopped per sample
    double stoppedTime = 0, stoppedRatio = 0; // seconds stopped in all, and that ÷ wall time

    std::vector<SharedObject> objects;
    std::vector<Bin> bins; // non-zero bins, ascending addresses

    uint64_t inRange() const { return counts[kInRange]; }
};

} // namespace ppe
