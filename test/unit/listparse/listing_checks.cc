#include "listing_checks.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ppe::listparse::test {

namespace {

    std::string baseName(const std::string& path)
    {
        size_t slash = path.rfind('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    }

} // namespace

const std::vector<std::string>& fixtureNames()
{
    static const std::vector<std::string> names {
        "simp.x86_64-gcc-O0",
        "simp.x86_64-gcc-O2",
        "simp.x86_64-gcc-O2-ahln",
        "simp.x86_64-gcc-O2-ffunction-sections",
        "simp.x86_64-gcc-O2-pipe-ahls",
        "longname.x86_64-gcc-O2-ffunction-sections",
        "cold.x86_64-gcc-O2",
        "sections.x86_64-gcc-O2",
        "stats.x86_64-gcc-O2",
        "templates.x86_64-g++-O0",
        "templates.x86_64-g++-O2",
        "comdat.x86_64-g++-O2",
        "ktest.x86_64-gfortran-O0",
        "ktest.x86_64-gfortran-O3",
        "simp.x86_64-clang-O2",
        "sections.x86_64-clang-O2",
        "stats.x86_64-clang-O2",
        "templates.x86_64-clang++-O2",
        "simp.arc-gcc-O0",
        "simp.arc-gcc-O2",
        "simp.arc-gcc-O2-ahln",
        "cold.arc-gcc-O2",
        "sections.arc-gcc-O2",
        "stats.arc-gcc-O2",
        "simp.aarch64-gcc-O2",
        "cold.aarch64-gcc-O2",
        "sections.aarch64-gcc-O2",
        "stats.aarch64-gcc-O2",
    };
    return names;
}

Listing parseFixture(const std::string& name)
{
    auto listing = parseListing(readFixture(name + ".lis"), name + ".lis");
    EXPECT_TRUE(listing.ok()) << (listing.ok() ? "" : listing.error().str());
    return listing.ok() ? std::move(listing.value()) : Listing {};
}

std::string listedName(const Listing& listing, const std::string& objectSection, std::optional<uint64_t> size)
{
    if (listing.sectionSizes.contains(objectSection))
        return objectSection;
    for (const std::string& cut : listing.truncatedSections) {
        const bool sized = !size || sectionSizeAgrees(listing, cut, *size);
        if (objectSection.starts_with(cutSectionPrefix(listing, cut)) && sized)
            return cut;
    }
    return "";
}

const CodeRange* rangeAt(const Listing& listing, const std::string& section, uint64_t offset)
{
    auto after = std::upper_bound(listing.ranges.begin(), listing.ranges.end(), std::pair(section, offset),
        [](const std::pair<std::string, uint64_t>& key, const CodeRange& r) {
            return key < std::pair(r.section, r.offset);
        });
    if (after == listing.ranges.begin())
        return nullptr;
    const CodeRange& range = *(after - 1);
    bool holds = range.section == section && offset < range.offset + range.size;
    return holds ? &range : nullptr;
}

std::string fileOf(const Listing& listing, const CodeRange& range) { return baseName(listing.files.at(range.file)); }

uint64_t bytesOfLine(const Listing& listing, const std::string& section, const std::string& file, int line)
{
    uint64_t bytes = 0;
    for (const CodeRange& range : listing.ranges) {
        if (range.section == section && range.line == line && fileOf(listing, range) == file)
            bytes += range.size;
    }
    return bytes;
}

namespace {

    std::string describe(const Listing& listing, const CodeRange* range)
    {
        return range ? fileOf(listing, *range) + ":" + std::to_string(range->line) : "no line";
    }

    void noteDifference(Agreement& agreement, const std::string& where, const LineRow& row, const std::string& listed)
    {
        if (agreement.bytes - agreement.agreeing > 8)
            return;
        agreement.firstDifferences
            += where + ": dwarf " + row.file + ":" + std::to_string(row.line) + ", listing " + listed + "\n";
    }

} // namespace

Agreement compareWithLineTable(const Listing& listing, const std::vector<LineSequence>& table)
{
    Agreement agreement;
    for (const LineSequence& sequence : table) {
        std::string section = listedName(listing, sequence.section, sequence.end);
        for (size_t i = 0; i < sequence.rows.size(); ++i) {
            const LineRow& row = sequence.rows[i];
            uint64_t next = i + 1 < sequence.rows.size() ? sequence.rows[i + 1].address : sequence.end;
            for (uint64_t offset = row.address; offset < next; ++offset) {
                const CodeRange* range = rangeAt(listing, section, offset);
                bool same = range ? range->line == row.line && fileOf(listing, *range) == row.file : row.line == 0;
                agreement.bytes += 1;
                agreement.agreeing += same ? 1 : 0;
                if (!same)
                    noteDifference(
                        agreement, sequence.section + "+" + std::to_string(offset), row, describe(listing, range));
            }
        }
    }
    return agreement;
}

} // namespace ppe::listparse::test
