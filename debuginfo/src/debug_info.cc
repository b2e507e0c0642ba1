// The DebugInfo lookups, and reading one file in this process: open, find the DWARF, collect
// symbols and DWARF, and put the result in its final order.
#include "in_process.h"

#include "address_ranges.h"
#include "debug_file_search.h"
#include "demangle.h"
#include "dwarf_reader.h"
#include "frame_ranges.h"

#include <algorithm>
#include <cinttypes>
#include <climits>
#include <cstdio>

namespace ppe::debuginfo {

namespace {

    uint64_t lowest(const std::vector<AddressRange>& r) { return r.empty() ? UINT64_MAX : r.front().start; }

    // Units sorted by their lowest address, and the functions' unit indexes to match.
    void sortUnits(DebugInfo& info)
    {
        std::vector<int> order(info.units.size());
        for (size_t i = 0; i < order.size(); ++i)
            order[i] = int(i);
        std::stable_sort(order.begin(), order.end(),
            [&](int a, int b) { return lowest(info.units[a].ranges) < lowest(info.units[b].ranges); });
        std::vector<int> newIndex(order.size());
        std::vector<CompileUnit> units;
        for (size_t i = 0; i < order.size(); ++i) {
            newIndex[order[i]] = int(i);
            units.push_back(std::move(info.units[order[i]]));
        }
        info.units = std::move(units);
        for (Function& f : info.functions)
            f.unit = f.unit >= 0 ? newIndex[f.unit] : -1;
    }

    // The code DWARF describes: its functions', and that of the units whose functions were not read
    // (Options::onlyWanted), which would otherwise come back as symbols' and frames' functions.
    IntervalSet describedCode(const DebugInfo& info)
    {
        IntervalSet described;
        for (const Function& f : info.functions)
            described.ranges.insert(described.ranges.end(), f.ranges.begin(), f.ranges.end());
        for (const CompileUnit& u : info.units) {
            if (!u.detailed)
                described.ranges.insert(described.ranges.end(), u.ranges.begin(), u.ranges.end());
        }
        described.finish();
        return described;
    }

    // Whether [start, end) meets one of `wanted` (sorted, merged).
    bool meets(const std::vector<AddressRange>& wanted, uint64_t start, uint64_t end)
    {
        auto it = std::upper_bound(
            wanted.begin(), wanted.end(), start, [](uint64_t a, const AddressRange& w) { return a < w.end; });
        return it != wanted.end() && it->start < end;
    }

    // Symbols where no DWARF function is (crt code, libraries without debug info) become functions.
    // A shared object read at its named offsets (Options::wantedOffsets with onlyWanted) gets only
    // those that hold one: the report names none of its other code, and a large library's tens of
    // thousands would all be demangled and sent back for nothing. Returns the code DWARF and every
    // such symbol name, taken or not (where .eh_frame's functions end).
    IntervalSet addSymbolFunctions(DebugInfo& info, const std::vector<Symbol>& symbols, const Options& options)
    {
        const IntervalSet described = describedCode(info);
        IntervalSet named = described;
        const bool onlyWanted = options.onlyWanted && options.wantedOffsets;
        for (const Symbol& s : symbols) {
            if (s.size == 0 || described.contains(s.address))
                continue;
            named.ranges.push_back(AddressRange { s.address, s.address + s.size });
            if (onlyWanted && !meets(options.wanted, s.address, s.address + s.size))
                continue;
            Function f;
            f.name = demangled(s.name);
            f.linkageName = f.name != s.name ? s.name : "";
            f.ranges = { AddressRange { s.address, s.address + s.size } };
            f.fromSymbols = true;
            info.functions.push_back(std::move(f));
        }
        named.finish();
        return named;
    }

    std::string hexName(uint64_t address)
    {
        char name[32];
        std::snprintf(name, sizeof name, "func_0x%" PRIx64, address);
        return name;
    }

    // The link-time code at a shared object's file offsets (one byte each), sorted and merged;
    // offsets outside the executable segments are left out.
    std::vector<AddressRange> codeAtOffsets(const DebugInfo& info, const std::vector<uint64_t>& offsets)
    {
        std::vector<AddressRange> wanted;
        for (uint64_t offset : offsets) {
            uint64_t address = 0;
            if (info.addressOfFileOffset(offset, address))
                wanted.push_back(AddressRange { address, address + 1 });
        }
        sortAndMerge(wanted);
        return wanted;
    }

    // The options as the readers take them: Options::wantedOffsets, with onlyWanted, become
    // `wanted` once the segments are known.
    Options effectiveOptions(const DebugInfo& info, const Options& options)
    {
        Options effective = options;
        if (options.onlyWanted && options.wantedOffsets)
            effective.wanted = codeAtOffsets(info, *options.wantedOffsets);
        return effective;
    }

    // The code the caller asks .eh_frame to name (Options::onlyWanted, Options::wantedOffsets), or
    // nullopt: all of it.
    std::optional<std::vector<AddressRange>> framesQuery(const DebugInfo& info, const Options& options)
    {
        if (options.onlyWanted)
            return options.wanted;
        if (!options.wantedOffsets)
            return std::nullopt;
        return codeAtOffsets(info, *options.wantedOffsets);
    }

    // The FDE ranges that can name code the report needs. Asked for some code, none unless a wanted
    // address is in code that neither DWARF nor a symbol names (`named`), and then only the FDEs
    // of the wanted code, found through .eh_frame_hdr: parsing every FDE's instructions costs more
    // than the rest of a function table (1 s and 300 MB for libLLVM's). Every FDE when there is no
    // usable .eh_frame_hdr; the names of the wanted code are the same either way.
    std::vector<AddressRange> framesFor(
        const obj::ELFObjectFileBase& elf, const DebugInfo& info, const IntervalSet& named, const Options& options)
    {
        const std::optional<std::vector<AddressRange>> wanted = framesQuery(info, options);
        if (!wanted)
            return frameRanges(elf);
        if (std::none_of(wanted->begin(), wanted->end(), [&](const AddressRange& w) {
                return isLoadedCode(info.segments, w.start) && !named.contains(w.start);
            }))
            return {};
        if (std::optional<std::vector<AddressRange>> some = frameRangesAt(elf, *wanted))
            return std::move(*some);
        return frameRanges(elf);
    }

    // Code that neither DWARF nor a symbol names (stripped libraries) becomes one function per
    // .eh_frame FDE, up to the next named code; then all functions are sorted by lowest address.
    void addFrameFunctions(DebugInfo& info, const std::vector<AddressRange>& frames, const IntervalSet& named)
    {
        for (const AddressRange& r : frames) {
            if (named.contains(r.start) || !isLoadedCode(info.segments, r.start))
                continue;
            Function f;
            f.name = hexName(r.start);
            f.ranges = { AddressRange { r.start, std::min(r.end, named.nextStart(r.start)) } };
            f.fromFrames = true;
            info.functions.push_back(std::move(f));
        }
        std::stable_sort(info.functions.begin(), info.functions.end(),
            [&](const Function& a, const Function& b) { return lowest(a.ranges) < lowest(b.ranges); });
    }

    // Lines sorted, cut where the next begins, empty ones dropped.
    void sortLines(std::vector<LineRange>& lines)
    {
        std::sort(lines.begin(), lines.end(), [](const LineRange& a, const LineRange& b) { return a.start < b.start; });
        for (size_t i = 0; i + 1 < lines.size(); ++i)
            lines[i].end = std::min(lines[i].end, lines[i + 1].start);
        lines.erase(std::remove_if(lines.begin(), lines.end(), [](const LineRange& l) { return l.end <= l.start; }),
            lines.end());
    }

    // Each line range's outermost function, and whether it is inlined code.
    void annotateLines(DebugInfo& info, IntervalSet& inlined)
    {
        struct Owner {
            uint64_t start, end;
            int function;
        };
        std::vector<Owner> owners;
        for (size_t f = 0; f < info.functions.size(); ++f) {
            for (const AddressRange& r : info.functions[f].ranges)
                owners.push_back(Owner { r.start, r.end, int(f) });
        }
        std::sort(owners.begin(), owners.end(), [](const Owner& a, const Owner& b) { return a.start < b.start; });
        inlined.finish();
        for (LineRange& l : info.lines) {
            auto it = std::upper_bound(
                owners.begin(), owners.end(), l.start, [](uint64_t a, const Owner& o) { return a < o.start; });
            if (it != owners.begin() && l.start < std::prev(it)->end)
                l.function = std::prev(it)->function;
            l.inlined = inlined.contains(l.start);
        }
    }

} // namespace

bool DebugInfo::addressOfFileOffset(uint64_t offset, uint64_t& address) const
{
    for (const Segment& s : segments) {
        if (s.executable && offset >= s.fileOffset && offset < s.fileOffset + s.fileSize) {
            address = s.address + (offset - s.fileOffset);
            return true;
        }
    }
    return false;
}

const Function* DebugInfo::functionAt(uint64_t address) const
{
    for (const Function& f : functions) {
        for (const AddressRange& r : f.ranges) {
            if (address >= r.start && address < r.end)
                return &f;
        }
    }
    return nullptr;
}

Result<std::string> readBuildId(const std::string& path)
{
    auto opened = openElf(path);
    if (!opened)
        return opened.error();
    return buildIdOf(*opened->elf);
}

Result<DebugInfo> loadInProcess(const std::string& path, const Options& asked, bool readDwarf)
{
    auto opened = openElf(path);
    if (!opened)
        return opened.error();
    const obj::ELFObjectFileBase& elf = *opened->elf;
    DebugInfo info;
    info.path = path;
    info.buildId = buildIdOf(elf);
    info.segments = segmentsOf(elf);
    const Options options = effectiveOptions(info, asked);

    std::optional<OpenedElf> split;
    const obj::ObjectFile* dwarf = nullptr;
    if (readDwarf && hasDwarf(elf)) {
        dwarf = &elf;
        info.debugPath = path;
    } else if (readDwarf && (split = findDebugFile(path, elf, info.buildId, options, info.debugPath))) {
        dwarf = split->elf;
    }
    const std::vector<Symbol> symbols = readSymbols(elf, split ? split->elf : nullptr);
    DwarfReader reader(info, options, symbols);
    if (dwarf)
        reader.read(*dwarf);
    sortUnits(info);
    const IntervalSet named = addSymbolFunctions(info, symbols, options);
    addFrameFunctions(info, readDwarf ? framesFor(elf, info, named, options) : std::vector<AddressRange>(), named);
    sortLines(info.lines);
    annotateLines(info, reader.inlined());
    return info;
}

} // namespace ppe::debuginfo
