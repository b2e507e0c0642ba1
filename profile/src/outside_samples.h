// The samples outside the monitored object as the collector took them (format version 2's
// `mapping`, `outside-pc`, `retired-object` and `retired-hit` records) and their attribution to
// categories and shared objects by core's rules (histogram.h categoryOfMapping): the one home of
// that attribution, for a .ppe file and for a recovered live file (whose text carries the same
// records). The collector only keeps the raw material: it runs inside other people's programs.
#pragma once

#include "ppe/profile/profile.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ppe::detail {

// What one profile may claim (profile_reader.h), four times or more what the collector writes:
// the live file's 1024 mappings with 64 KiB of paths, 32768 PCs and 256 unloaded objects.
inline constexpr size_t kMaxProfileMappings = 4096;
inline constexpr size_t kMaxProfileMappingPaths = 256 * 1024; // bytes of distinct paths
inline constexpr size_t kMaxProfileOutsidePcs = 1 << 20;
inline constexpr size_t kMaxProfileRetiredObjects = 1024;
// Shared objects attributed per profile, as the collector's table held them; the samples of
// more are counted unknown.
inline constexpr size_t kMaxAttributedObjects = 1024;

struct OutsideSamples {
    struct Mapping {
        uint64_t start, end, offset;
        uint32_t path; // index into `paths`: one per distinct path, one object per path
        std::string buildId;
    };
    struct Hit {
        size_t object; // retired-hit: index into `retired`; attributed: into Profile::objects
        uint64_t offset;
        uint64_t count;
    };
    std::vector<std::string> paths;
    std::map<std::string, uint32_t> pathIds;
    size_t pathBytes = 0;
    std::vector<Mapping> mappings; // ascending, disjoint
    std::vector<Bin> pcs; // run-time address and count
    std::vector<SharedObject> retired; // path and build id
    std::vector<Hit> retiredHits;
};

// Takes a line of one of the four records: nullopt when the line is none of them, else an error
// message, or "" when the line is good.
std::optional<std::string> takeOutsideRecord(const std::vector<std::string>& f, OutsideSamples& s);

// Adds the samples to `p`: each PC to the category of the mapping that held it (unknown when none
// did), those of shared objects to objects appended to p.objects with a hit per file offset; the
// blocked places given as run-time addresses to the objects that hold them; the samples of
// unloaded objects to the loaded object of the same path and build id, else to one of their own.
void attributeOutside(Profile& p, const OutsideSamples& s);

} // namespace ppe::detail
