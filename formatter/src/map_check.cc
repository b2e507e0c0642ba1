#include "ppe/formatter/map_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace ppe::formatter {

namespace {

    // At most this share of the map's code sections may fail to start and end where functions
    // of the image do. Measured on the examples (test/e2e/ppeout_test.cc MapOf...): the right map
    // misses 1 of 4 (crtbeginS.o's .text ends in padding); maps of other programs and of another
    // build (-O1 for -O2) miss all of theirs.
    constexpr double kMaxSectionsAmiss = 0.5;

    // Hits outside the map's code above this share (and count) mean another program: padding and
    // PLT entries take a few percent of a real program's in-range hits.
    constexpr double kMaxOutsidePercent = 5.0;
    constexpr double kMinOutsideHits = 20;

    // Bytes after the map's last code input section that an output section of code may still hold
    // (linker-made pieces the map parser leaves out, padding). Measured on every example's map: 0,
    // except gold's ktest map, 2 (.text ends at 0x1250, its code at 0x124E); simp's -O1 map ends
    // 0x19 bytes before the -O2 build's .text does.
    constexpr uint64_t kSectionEndSlack = 16;

    // Where the image's functions (and their .cold parts) start and end.
    struct Boundaries {
        std::set<uint64_t> starts, ends;
    };

    Boundaries functionBoundaries(const debuginfo::DebugInfo& image)
    {
        Boundaries b;
        for (const debuginfo::Function& f : image.functions) {
            for (const debuginfo::AddressRange& r : f.ranges) {
                b.starts.insert(r.start);
                b.ends.insert(r.end);
            }
        }
        return b;
    }

    std::vector<std::pair<uint64_t, uint64_t>> sectionSpans(const mapparse::LinkMap& map)
    {
        std::vector<std::pair<uint64_t, uint64_t>> spans;
        for (const mapparse::Module& m : map.modules) {
            for (const mapparse::Section& s : m.sections)
                spans.emplace_back(s.address, s.end());
        }
        std::sort(spans.begin(), spans.end());
        return spans;
    }

    // Bytes of [start, end) that the sorted spans cover.
    uint64_t coveredBytes(const std::vector<std::pair<uint64_t, uint64_t>>& spans, uint64_t start, uint64_t end)
    {
        auto it = std::upper_bound(spans.begin(), spans.end(), std::make_pair(start, UINT64_MAX));
        if (it != spans.begin())
            --it;
        uint64_t covered = 0, from = start;
        for (; it != spans.end() && it->first < end; ++it) {
            const uint64_t lo = std::max(from, it->first);
            const uint64_t hi = std::min(end, it->second);
            if (hi > lo) {
                covered += hi - lo;
                from = hi;
            }
        }
        return covered;
    }

    // Where the map puts the code of output section `name`: [lowest start, highest end), or {0, 0}.
    std::pair<uint64_t, uint64_t> outputSectionExtent(const mapparse::LinkMap& map, const std::string& name)
    {
        uint64_t start = UINT64_MAX, end = 0;
        for (const mapparse::Module& m : map.modules) {
            for (const mapparse::Section& s : m.sections) {
                if (s.outputSection != name)
                    continue;
                start = std::min(start, s.address);
                end = std::max(end, s.end());
            }
        }
        return end ? std::make_pair(start, end) : std::make_pair(uint64_t(0), uint64_t(0));
    }

    // The map's code in `section` starts where the section does and ends within kSectionEndSlack of its end.
    bool fitsSection(std::pair<uint64_t, uint64_t> extent, const ImageSection& section)
    {
        const uint64_t end = section.address + section.size;
        return extent.first == section.address && extent.second <= end && end - extent.second <= kSectionEndSlack;
    }

    std::string outputName(const mapparse::LinkMap& map)
    {
        return map.outputFile.empty() ? "" : fmt::format(" (it names its output {})", map.outputFile);
    }

} // namespace

SectionFit sectionsAtFunctions(const mapparse::LinkMap& map, const debuginfo::DebugInfo& image)
{
    const Boundaries functions = functionBoundaries(image);
    SectionFit fit;
    for (const mapparse::Module& m : map.modules) {
        for (const mapparse::Section& s : m.sections) {
            if (s.outputSection == ".init" || s.outputSection == ".fini")
                continue; // crtn.o's pieces of them are no function
            ++fit.sections;
            fit.amiss += !functions.starts.contains(s.address) || !functions.ends.contains(s.end());
        }
    }
    return fit;
}

std::optional<std::string> mapMismatchBySymbols(const mapparse::LinkMap& map, const debuginfo::DebugInfo& image)
{
    if (image.functions.empty())
        return std::nullopt; // a stripped image says nothing
    const SectionFit fit = sectionsAtFunctions(map, image);
    if (fit.sections == 0 || double(fit.amiss) <= kMaxSectionsAmiss * double(fit.sections))
        return std::nullopt;
    return fmt::format(
        "{} of its {} code sections do not start and end where functions of {} (the profile's build) do{}", fit.amiss,
        fit.sections, image.path, outputName(map));
}

double hitsOutsideMapPercent(const mapparse::LinkMap& map, const Profile& profile)
{
    const auto spans = sectionSpans(map);
    const uint64_t width = std::max<uint64_t>(profile.binWidth, 1);
    double outside = 0, all = 0;
    for (const Bin& bin : profile.bins) {
        const double covered = double(coveredBytes(spans, bin.address, bin.address + width)) / double(width);
        outside += double(bin.count) * (1.0 - covered);
        all += double(bin.count);
    }
    return all > 0 ? 100.0 * outside / all : 0;
}

std::optional<std::string> mapMismatchBySections(const mapparse::LinkMap& map, const Profile& profile)
{
    for (const ImageSection& section : profile.codeSections) {
        const auto extent = outputSectionExtent(map, section.name);
        if (!extent.second || fitsSection(extent, section))
            continue;
        return fmt::format("its {} holds code at {:X}-{:X}, the profile's build has {} at {:X}-{:X}{}", section.name,
            extent.first, extent.second, section.name, section.address, section.address + section.size,
            outputName(map));
    }
    return std::nullopt;
}

std::optional<std::string> mapMismatchByRange(const mapparse::LinkMap& map, const Profile& profile)
{
    if (auto why = mapMismatchBySections(map, profile))
        return why;
    for (const mapparse::Module& m : map.modules) {
        for (const mapparse::Section& s : m.sections) {
            if (s.address >= profile.rangeStart && s.end() <= profile.rangeEnd)
                continue;
            return fmt::format("{} of its {} is at {:X}-{:X}, outside the profile's monitored range {:X}-{:X}{}",
                s.name, m.name, s.address, s.end(), profile.rangeStart, profile.rangeEnd, outputName(map));
        }
    }
    const double percent = hitsOutsideMapPercent(map, profile);
    const double hits = percent / 100.0 * double(profile.inRange());
    if (percent <= kMaxOutsidePercent || hits < kMinOutsideHits)
        return std::nullopt;
    return fmt::format("{:.2f}% of the in-range hits fall outside its code sections{}", percent, outputName(map));
}

} // namespace ppe::formatter
