#include "ppe/formatter/address_sources.h"

#include "paths.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>
#include <fmt/format.h>
#include <map>
#include <memory>
#include <optional>
#include <set>

namespace ppe::formatter {

namespace {

    void addRange(CodeModule& module, uint64_t start, uint64_t end)
    {
        if (!module.ranges.empty() && module.ranges.back().end == start)
            module.ranges.back().end = end;
        else
            module.ranges.push_back({ start, end });
    }

    bool endsWith(std::string_view text, std::string_view suffix)
    {
        return text.size() > suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
    }

    // Suffixes a compiler's input or output has; a key loses one of each kind.
    constexpr std::string_view kObjectSuffixes[] = { ".o", ".obj", ".lo", ".lis", ".lst", ".s" };
    constexpr std::string_view kSourceSuffixes[] = { ".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".f", ".for", ".f77",
        ".f90", ".f95", ".f03", ".f08", ".F", ".F90", ".F95", ".F03", ".F08", ".s", ".S", ".i", ".ii" };

    std::string_view dropSuffix(std::string_view name, const std::string_view* first, const std::string_view* last)
    {
        for (auto s = first; s != last; ++s) {
            if (endsWith(name, *s))
                return name.substr(0, name.size() - s->size());
        }
        return name;
    }

    struct SectionPair {
        const mapparse::Section* map;
        std::string listed; // the listing's name for it
    };

    // The listing's name for a map section: the same name, or the first cut name not taken yet
    // that is a prefix of it and whose size agrees (NAME, NAME#2...: COMDAT sections whose names
    // gas cut alike, in the object's order), else the first cut prefix (its size then tells).
    std::optional<std::string> listedName(
        const listparse::Listing& listing, const mapparse::Section& section, const std::set<std::string>& taken)
    {
        if (listing.sectionSizes.contains(section.name))
            return section.name;
        std::optional<std::string> prefixOnly;
        for (const std::string& cut : listing.truncatedSections) {
            if (taken.contains(cut) || !section.name.starts_with(listparse::cutSectionPrefix(listing, cut)))
                continue;
            if (listparse::sectionSizeAgrees(listing, cut, section.size))
                return cut;
            if (!prefixOnly && listing.sectionSizes.contains(cut))
                prefixOnly = cut;
        }
        return prefixOnly;
    }

    // PPE's rule: every code section the map gives the unit has the size the listing shows. The
    // error says which one differs.
    Result<std::vector<SectionPair>> pairSections(
        const listparse::Listing& listing, const std::string& listingPath, const mapparse::Module& unit)
    {
        std::vector<SectionPair> pairs;
        std::set<std::string> taken;
        for (const mapparse::Section& s : unit.sections) {
            const std::optional<std::string> listed = listedName(listing, s, taken);
            if (!listed) {
                return Error { listingPath, 0,
                    fmt::format("the map's {} has code section {} that the listing does not: a listing of another "
                                "build, ignored",
                        unit.name, s.name) };
            }
            if (!listparse::sectionSizeAgrees(listing, *listed, s.size)) {
                return Error { listingPath, 0,
                    fmt::format("section {} is {} bytes in the listing but {} in the map's {}: a listing of another "
                                "build, ignored",
                        s.name, listing.sectionSizes.at(*listed), s.size, unit.name) };
            }
            if (listing.truncatedSections.contains(*listed))
                taken.insert(*listed);
            pairs.push_back(SectionPair { &s, *listed });
        }
        return pairs;
    }

    // The listing's code lines in the map's sections, by address (for --asm).
    std::vector<debuginfo::Instruction> placeCode(
        const listparse::Listing& listing, const std::vector<SectionPair>& pairs)
    {
        std::vector<debuginfo::Instruction> code;
        for (const SectionPair& pair : pairs) {
            const auto first = std::lower_bound(listing.codeLines.begin(), listing.codeLines.end(), pair.listed,
                [](const listparse::CodeLine& l, const std::string& name) { return l.section < name; });
            for (auto l = first; l != listing.codeLines.end() && l->section == pair.listed; ++l) {
                if (l->offset >= pair.map->size)
                    continue;
                const uint64_t end = std::min(l->offset + l->size, pair.map->size);
                code.push_back(debuginfo::Instruction { pair.map->address + l->offset, end - l->offset, l->text });
            }
        }
        std::sort(code.begin(), code.end(), [](const auto& a, const auto& b) { return a.address < b.address; });
        return code;
    }

    // The line slots a listing's source lines may take, gaps included: so many for each line it
    // lists, and this many besides.
    constexpr size_t kDenseLinesPerListed = 64;
    constexpr size_t kDenseLinesAnyway = 1 << 16;

    LineTable placeRanges(
        const listparse::Listing& listing, const std::string& listingPath, const std::vector<SectionPair>& pairs)
    {
        LineTable table;
        table.origin = "listing " + listingPath;
        table.files = listing.files;
        for (const SectionPair& pair : pairs) {
            const auto first = std::lower_bound(listing.ranges.begin(), listing.ranges.end(), pair.listed,
                [](const listparse::CodeRange& r, const std::string& name) { return r.section < name; });
            for (auto r = first; r != listing.ranges.end() && r->section == pair.listed; ++r) {
                if (r->offset >= pair.map->size)
                    continue;
                const uint64_t end = std::min(r->offset + r->size, pair.map->size);
                table.ranges.push_back(
                    LineSpan { pair.map->address + r->offset, pair.map->address + end, r->file, r->line });
            }
        }
        std::sort(table.ranges.begin(), table.ranges.end(),
            [](const LineSpan& a, const LineSpan& b) { return a.start < b.start; });
        table.text.resize(table.files.size());
        table.textPaths.resize(table.files.size());
        // The copies are kept by line number, gaps and all: the gaps may cost no more than the
        // listing's own lines do (a line number is not believed before its text is sized by it).
        size_t room = kDenseLinesPerListed * listing.sourceLines.size() + kDenseLinesAnyway;
        for (const listparse::SourceLine& l : listing.sourceLines) {
            if (l.file < 0 || size_t(l.file) >= table.text.size() || l.line < 1)
                continue;
            std::vector<std::string>& text = table.text[l.file];
            if (text.size() < size_t(l.line)) {
                if (size_t(l.line) - text.size() > room)
                    continue; // its text comes from the source file, if that is found
                room -= size_t(l.line) - text.size();
                text.resize(l.line);
            }
            text[l.line - 1] = l.text;
        }
        return table;
    }

} // namespace

std::string functionOfSection(std::string_view section)
{
    static constexpr std::string_view kPrefixes[]
        = { ".text.startup.", ".text.unlikely.", ".text.hot.", ".text.exit.", ".text." };
    static constexpr std::string_view kCompilerParts[]
        = { ".text.startup", ".text.unlikely", ".text.hot", ".text.exit" };
    for (std::string_view part : kCompilerParts) {
        if (section == part)
            return "";
    }
    for (std::string_view prefix : kPrefixes) {
        if (section.size() > prefix.size() && section.substr(0, prefix.size()) == prefix)
            return std::string(section.substr(prefix.size()));
    }
    return "";
}

std::string demangledName(const std::string& symbol)
{
    if (!symbol.starts_with("_Z"))
        return symbol;
    int status = -1;
    std::unique_ptr<char, void (*)(void*)> text(
        abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status), std::free);
    return status == 0 && text ? std::string(text.get()) : symbol;
}

namespace {

    // A unit compiled without -ffunction-sections has code in a section of its own (.text,
    // .text.startup, .text.unlikely...): then its .text._Z... sections are COMDAT groups (templates,
    // inline functions) that belong to it, not functions of their own.
    bool hasUnitSections(const mapparse::Module& m)
    {
        return std::any_of(m.sections.begin(), m.sections.end(),
            [](const mapparse::Section& s) { return functionOfSection(s.name).empty(); });
    }

} // namespace

std::vector<CodeModule> modulesFromMap(const mapparse::LinkMap& map, std::vector<size_t>& origin)
{
    std::vector<CodeModule> modules;
    origin.clear();
    for (size_t u = 0; u < map.modules.size(); ++u) {
        const mapparse::Module& m = map.modules[u];
        CodeModule unit { m.name, {} };
        const bool oneModule = hasUnitSections(m);
        std::map<std::string, CodeModule> functions;
        for (const mapparse::Section& s : m.sections) {
            const std::string function = oneModule ? "" : functionOfSection(s.name);
            CodeModule& owner = function.empty()
                ? unit
                : functions.try_emplace(function, CodeModule { demangledName(function), {}, -1, false, m.name })
                      .first->second;
            addRange(owner, s.address, s.end());
        }
        if (!unit.ranges.empty()) {
            modules.push_back(std::move(unit));
            origin.push_back(u);
        }
        for (auto& [name, module] : functions) {
            modules.push_back(std::move(module));
            origin.push_back(u);
        }
    }
    return modules;
}

std::string moduleKey(std::string_view name)
{
    if (endsWith(name, ")")) {
        const size_t open = name.rfind('(');
        if (open != std::string_view::npos)
            name = name.substr(open + 1, name.size() - open - 2);
    }
    name = baseName(name);
    name = dropSuffix(name, std::begin(kObjectSuffixes), std::end(kObjectSuffixes));
    name = dropSuffix(name, std::begin(kSourceSuffixes), std::end(kSourceSuffixes));
    return std::string(name);
}

bool isCompilerTemporary(std::string_view objectName)
{
    // gcc's driver names the object of `cc -o prog file.c` after mkstemps: ccXXXXXX.o in TMPDIR.
    const std::string_view base = baseName(objectName);
    if (base.size() != 10 || !base.starts_with("cc") || !base.ends_with(".o"))
        return false;
    return std::all_of(base.begin() + 2, base.end() - 2, [](char c) { return std::isalnum((unsigned char)c); });
}

namespace {

    PlacedListing placeAt(const listparse::Listing& listing, const std::string& listingPath,
        const mapparse::LinkMap& map, size_t u, const std::vector<SectionPair>& pairs)
    {
        PlacedListing placed { u, placeRanges(listing, listingPath, pairs), placeCode(listing, pairs), {}, false };
        for (const auto& entry : listing.sectionSizes) {
            const std::string& section = entry.first;
            const bool placedSection
                = std::any_of(pairs.begin(), pairs.end(), [&](const SectionPair& p) { return p.listed == section; });
            if (entry.second > 0 && !placedSection)
                placed.notes.push_back(fmt::format("{}: section {} ({} bytes) is not in the map's {}: the linker left "
                                                   "it out",
                    listingPath, section, entry.second, map.modules[u].name));
        }
        return placed;
    }

    // The one compiler temporary object (`cc -o prog file.c` links /tmp/ccXXXXXX.o) or link-time
    // partition (a listing made at link time: gcc -flto -Wa,-adhln=FILE) whose code sections
    // have the sizes the listing shows, or nullopt when none or several fit.
    std::optional<PlacedListing> placeAtTemporary(
        const listparse::Listing& listing, const std::string& listingPath, const mapparse::LinkMap& map)
    {
        std::optional<PlacedListing> found;
        for (size_t u = 0; u < map.modules.size(); ++u) {
            const std::string& path = map.modules[u].path;
            if (!isCompilerTemporary(path) && !mapparse::isLinkTimePartition(path))
                continue;
            auto pairs = pairSections(listing, listingPath, map.modules[u]);
            if (!pairs)
                continue;
            if (found)
                return std::nullopt; // two temporaries fit: the sizes cannot tell them apart
            found = placeAt(listing, listingPath, map, u, *pairs);
            found->temporary = isCompilerTemporary(path);
        }
        return found;
    }

} // namespace

Result<PlacedListing> placeListing(
    const listparse::Listing& listing, const std::string& listingPath, const mapparse::LinkMap& map)
{
    if (listing.ltoBytecode && listing.ranges.empty())
        return Error { listingPath, 0,
            fmt::format("made at compile time with -flto: it holds the link-time bytecode of {} (.gnu.lto_ "
                        "sections), no code (gcc makes the code at link time), ignored; with -g the lines come from "
                        "the executable's DWARF (modules by source file), or list at link time: -Wa,-adhln=FILE "
                        "on the link command, with -flto-partition=one",
                listing.primarySource.empty() ? moduleKey(listingPath) : listing.primarySource) };
    const std::string bySource = listing.primarySource.empty() ? "" : moduleKey(listing.primarySource);
    const std::string byListing = moduleKey(listingPath);
    std::optional<Error> mismatch;
    for (size_t u = 0; u < map.modules.size(); ++u) {
        const std::string key = moduleKey(map.modules[u].name);
        if (key != bySource && key != byListing)
            continue;
        auto pairs = pairSections(listing, listingPath, map.modules[u]);
        if (!pairs) {
            if (!mismatch)
                mismatch = pairs.error();
            continue;
        }
        return placeAt(listing, listingPath, map, u, *pairs);
    }
    if (mismatch)
        return *mismatch;
    if (std::optional<PlacedListing> placed = placeAtTemporary(listing, listingPath, map))
        return std::move(*placed);
    const std::string source = listing.primarySource.empty() ? byListing : listing.primarySource;
    const std::string key = bySource.empty() ? byListing : bySource;
    return Error { listingPath, 0,
        fmt::format("{} is not linked into this program: no object of the map is named like it ({}.o, {}.o; an "
                    "archive member that nothing referred to?), ignored",
            source, key, source) };
}

} // namespace ppe::formatter
