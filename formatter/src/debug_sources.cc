#include "ppe/formatter/debug_sources.h"

#include "paths.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>
#include <optional>

namespace ppe::formatter {

namespace {

    namespace di = debuginfo;

    std::string unitPath(const di::CompileUnit& u)
    {
        if (u.name.empty() || u.name.front() == '/' || u.compDir.empty())
            return u.name;
        return u.compDir + "/" + u.name;
    }

    // Which owner (a compile unit, a file's module) holds an address.
    class RangeIndex {
    public:
        void add(uint64_t start, uint64_t end, int owner) { m_ranges.push_back({ start, end, owner }); }

        void finish()
        {
            std::sort(
                m_ranges.begin(), m_ranges.end(), [](const Entry& a, const Entry& b) { return a.start < b.start; });
        }

        int at(uint64_t address) const
        {
            auto it = std::upper_bound(
                m_ranges.begin(), m_ranges.end(), address, [](uint64_t a, const Entry& e) { return a < e.start; });
            if (it == m_ranges.begin())
                return -1;
            --it;
            return address < it->end ? it->owner : -1;
        }

    private:
        struct Entry {
            uint64_t start, end;
            int owner;
        };
        std::vector<Entry> m_ranges;
    };

    RangeIndex unitIndex(const di::DebugInfo& info)
    {
        RangeIndex index;
        for (size_t u = 0; u < info.units.size(); ++u) {
            for (const di::AddressRange& r : info.units[u].ranges)
                index.add(r.start, r.end, int(u));
        }
        index.finish();
        return index;
    }

    // gcc's name for the compile unit of a link-time partition.
    bool isArtificial(const di::CompileUnit& u) { return u.name == "<artificial>"; }

    // Unit names as a user knows them: the base name of the unit's file, or its name as the
    // compiler had it where two units share a base name.
    std::vector<std::string> unitNames(const di::DebugInfo& info)
    {
        std::map<std::string, int> uses;
        for (const di::CompileUnit& u : info.units)
            ++uses[std::string(baseName(u.name))];
        std::vector<std::string> names;
        for (const di::CompileUnit& u : info.units) {
            const std::string base(baseName(u.name));
            names.push_back(uses[base] > 1 ? u.name : base);
        }
        return names;
    }

    // One line table per owner of code (`index` gives the owner of an address; ownFiles[i] is
    // owner i's own file), from DWARF's rows (line 0, code the compiler made up, stays without a
    // line). Built for all owners at once, in one pass over the rows.
    std::vector<LineTable> lineTables(
        const di::DebugInfo& info, const RangeIndex& index, const std::vector<std::string>& ownFiles)
    {
        std::vector<LineTable> tables(ownFiles.size());
        std::vector<std::map<int, int>> localFile(ownFiles.size());
        std::vector<std::map<int, int>> localFunction(ownFiles.size());
        std::map<std::string, int> globalFile;
        for (size_t f = 0; f < info.files.size(); ++f)
            globalFile.emplace(info.files[f], int(f));
        for (size_t u = 0; u < ownFiles.size(); ++u) {
            LineTable& t = tables[u];
            t.origin = "DWARF line table";
            const std::string& own = ownFiles[u];
            t.files.push_back(own);
            if (auto it = globalFile.find(own); it != globalFile.end())
                localFile[u][it->second] = 0;
        }
        for (const di::LineRange& row : info.lines) {
            if (row.line <= 0 || row.end <= row.start)
                continue;
            const int u = index.at(row.start);
            if (u < 0 || size_t(u) >= tables.size())
                continue;
            LineTable& t = tables[u];
            auto [file, added] = localFile[u].try_emplace(row.file, int(t.files.size()));
            if (added)
                t.files.push_back(size_t(row.file) < info.files.size() ? info.files[row.file] : "?");
            int caller = -1;
            if (row.inlined && row.function >= 0 && size_t(row.function) < info.functions.size()) {
                auto [slot, fresh] = localFunction[u].try_emplace(row.function, int(t.functions.size()));
                if (fresh)
                    t.functions.push_back(info.functions[row.function].name);
                caller = slot->second;
            }
            if (!t.ranges.empty()) {
                LineSpan& last = t.ranges.back();
                if (last.end == row.start && last.file == file->second && last.line == row.line
                    && last.inlinedInto == caller) {
                    last.end = row.end;
                    continue;
                }
            }
            t.ranges.push_back(LineSpan { row.start, row.end, file->second, row.line, caller });
        }
        for (LineTable& t : tables) {
            std::sort(t.ranges.begin(), t.ranges.end(),
                [](const LineSpan& a, const LineSpan& b) { return a.start < b.start; });
            t.text.resize(t.files.size());
            t.textPaths.resize(t.files.size());
        }
        return tables;
    }

    std::vector<LineTable> unitTables(const di::DebugInfo& info, const RangeIndex& index)
    {
        std::vector<std::string> own;
        for (const di::CompileUnit& u : info.units)
            own.push_back(unitPath(u));
        return lineTables(info, index, own);
    }

    std::vector<AddressSpan> rangesOf(const std::vector<di::AddressRange>& ranges)
    {
        std::vector<AddressSpan> out;
        for (const di::AddressRange& r : ranges) {
            if (r.end > r.start)
                out.push_back({ r.start, r.end });
        }
        std::sort(out.begin(), out.end(), [](const AddressSpan& a, const AddressSpan& b) { return a.start < b.start; });
        return out;
    }

    // The file a function was written in: that of its first line of code not inlined from
    // elsewhere (its entry line, where the compiler puts the prologue), else its unit's file when
    // the unit is a source file, else "" (no DWARF describes it).
    std::string fileOfFunction(const di::DebugInfo& info, const di::Function& f)
    {
        for (const di::AddressRange& r : f.ranges) {
            auto row = std::upper_bound(info.lines.begin(), info.lines.end(), r.start,
                [](uint64_t a, const di::LineRange& l) { return a < l.start; });
            if (row != info.lines.begin() && std::prev(row)->end > r.start)
                --row;
            for (; row != info.lines.end() && row->start < r.end; ++row) {
                if (row->line > 0 && !row->inlined && row->file >= 0 && size_t(row->file) < info.files.size())
                    return info.files[row->file];
            }
        }
        if (f.unit >= 0 && size_t(f.unit) < info.units.size() && !isArtificial(info.units[f.unit]))
            return unitPath(info.units[f.unit]);
        return "";
    }

    // Sorted ranges with the touching and overlapping ones joined.
    std::vector<AddressSpan> merged(std::vector<AddressSpan> ranges)
    {
        std::sort(
            ranges.begin(), ranges.end(), [](const AddressSpan& a, const AddressSpan& b) { return a.start < b.start; });
        std::vector<AddressSpan> out;
        for (const AddressSpan& r : ranges) {
            if (!out.empty() && r.start <= out.back().end)
                out.back().end = std::max(out.back().end, r.end);
            else
                out.push_back(r);
        }
        return out;
    }

    // Base names, or the path where two files share one.
    void nameByFile(std::vector<CodeModule>& modules, const std::vector<std::string>& paths)
    {
        std::map<std::string, int> uses;
        for (const std::string& p : paths)
            ++uses[std::string(baseName(p))];
        for (CodeModule& m : modules) {
            if (!m.wholeFile)
                continue;
            const std::string& path = paths[size_t(m.lineTable)];
            const std::string base(baseName(path));
            m.name = uses[base] > 1 ? path : base;
        }
    }

    // A module per source file, of the functions written in it (fileOfFunction), with a line table
    // of its own; a function of no known file is a module of its own, without lines.
    DebugModules fileModules(const di::DebugInfo& info)
    {
        DebugModules out;
        std::map<std::string, size_t> moduleOfFile;
        std::vector<std::string> paths; // per table
        for (const di::Function& f : info.functions) {
            std::vector<AddressSpan> ranges = rangesOf(f.ranges);
            if (ranges.empty())
                continue;
            const std::string path = fileOfFunction(info, f);
            if (path.empty()) {
                out.modules.push_back(CodeModule { f.name, std::move(ranges), -1, false });
                continue;
            }
            auto [slot, added] = moduleOfFile.try_emplace(path, out.modules.size());
            if (added) {
                out.modules.push_back(CodeModule { "", {}, int(paths.size()), true });
                paths.push_back(path);
                const bool known = f.unit >= 0 && size_t(f.unit) < info.units.size();
                out.baseDirs.push_back({ known ? info.units[f.unit].compDir : "" });
            }
            std::vector<AddressSpan>& into = out.modules[slot->second].ranges;
            into.insert(into.end(), ranges.begin(), ranges.end());
        }
        RangeIndex index;
        for (CodeModule& m : out.modules) {
            m.ranges = merged(std::move(m.ranges));
            for (const AddressSpan& r : m.ranges) {
                if (m.wholeFile)
                    index.add(r.start, r.end, m.lineTable);
            }
        }
        index.finish();
        nameByFile(out.modules, paths);
        out.tables = lineTables(info, index, paths);
        return out;
    }

} // namespace

bool hasArtificialUnits(const debuginfo::DebugInfo& info)
{
    return std::any_of(info.units.begin(), info.units.end(),
        [](const di::CompileUnit& u) { return isArtificial(u) && !u.ranges.empty(); });
}

ModuleKind chooseModuleKind(const debuginfo::DebugInfo& info, ModuleKind asked)
{
    if (asked != ModuleKind::Auto)
        return asked;
    return hasArtificialUnits(info) ? ModuleKind::File : ModuleKind::Unit;
}

DebugModules modulesFromDebugInfo(const debuginfo::DebugInfo& info, ModuleKind asked)
{
    const ModuleKind kind = chooseModuleKind(info, asked);
    if (kind == ModuleKind::File)
        return fileModules(info);
    DebugModules out;
    const RangeIndex index = unitIndex(info);
    out.tables = unitTables(info, index);
    for (const di::CompileUnit& u : info.units)
        out.baseDirs.push_back({ u.compDir });
    const std::vector<std::string> names = unitNames(info);
    if (kind == ModuleKind::Unit) {
        for (size_t u = 0; u < info.units.size(); ++u) {
            CodeModule m { names[u], rangesOf(info.units[u].ranges), int(u), true };
            if (!m.ranges.empty())
                out.modules.push_back(std::move(m));
        }
    }
    for (const di::Function& f : info.functions) {
        const std::vector<AddressSpan> ranges = rangesOf(f.ranges);
        if (ranges.empty())
            continue;
        const int unit = f.unit >= 0 ? f.unit : index.at(ranges.front().start);
        if (kind == ModuleKind::Unit && unit >= 0)
            continue; // its unit is the module
        out.modules.push_back(CodeModule { f.name, ranges, unit, false, unit >= 0 ? names[size_t(unit)] : "" });
    }
    return out;
}

size_t fillLineTables(const debuginfo::DebugInfo& info, std::vector<CodeModule>& modules,
    std::vector<LineTable>& tables, std::vector<std::vector<std::string>>& baseDirs)
{
    const RangeIndex index = unitIndex(info);
    std::vector<LineTable> unit = unitTables(info, index);
    std::map<int, int> added; // unit -> index in tables
    size_t filled = 0;
    for (CodeModule& m : modules) {
        if (m.lineTable >= 0 || m.ranges.empty())
            continue;
        const int u = index.at(m.ranges.front().start);
        if (u < 0 || unit[u].ranges.empty())
            continue;
        auto [slot, fresh] = added.try_emplace(u, int(tables.size()));
        if (fresh) {
            tables.push_back(unit[u]);
            baseDirs.push_back({ info.units[u].compDir });
        }
        m.lineTable = slot->second;
        ++filled;
    }
    return filled;
}

namespace {

    // The parts of `ranges` (sorted) inside `within` (sorted).
    std::vector<AddressSpan> intersect(const std::vector<AddressSpan>& ranges, const std::vector<AddressSpan>& within)
    {
        std::vector<AddressSpan> out;
        for (const AddressSpan& r : ranges) {
            for (const AddressSpan& w : within) {
                const uint64_t lo = std::max(r.start, w.start), hi = std::min(r.end, w.end);
                if (hi > lo)
                    out.push_back({ lo, hi });
            }
        }
        std::sort(out.begin(), out.end(), [](const AddressSpan& a, const AddressSpan& b) { return a.start < b.start; });
        return out;
    }

    // `ranges` (sorted) without the bytes of `taken` (sorted, non-overlapping).
    std::vector<AddressSpan> subtract(const std::vector<AddressSpan>& ranges, const std::vector<AddressSpan>& taken)
    {
        std::vector<AddressSpan> out;
        for (AddressSpan r : ranges) {
            for (const AddressSpan& t : taken) {
                if (t.end <= r.start || t.start >= r.end)
                    continue;
                if (t.start > r.start)
                    out.push_back({ r.start, t.start });
                r.start = std::max(r.start, t.end);
                if (r.start >= r.end)
                    break;
            }
            if (r.end > r.start)
                out.push_back(r);
        }
        return out;
    }

} // namespace

void splitUnitsByFunctions(
    const debuginfo::DebugInfo& info, std::vector<CodeModule>& modules, std::vector<size_t>& unitOf)
{
    std::vector<CodeModule> split;
    std::vector<size_t> splitUnitOf;
    for (size_t m = 0; m < modules.size(); ++m) {
        CodeModule& unit = modules[m];
        std::vector<AddressSpan> taken;
        for (const di::Function& f : info.functions) {
            if (!unit.wholeFile)
                break; // a -ffunction-sections module is a function already
            std::vector<AddressSpan> ranges = intersect(rangesOf(f.ranges), unit.ranges);
            if (ranges.empty())
                continue;
            taken.insert(taken.end(), ranges.begin(), ranges.end());
            split.push_back(
                CodeModule { fmt::format("{} ({})", f.name, unit.name), std::move(ranges), -1, false, unit.name });
            splitUnitOf.push_back(unitOf[m]);
        }
        std::sort(
            taken.begin(), taken.end(), [](const AddressSpan& a, const AddressSpan& b) { return a.start < b.start; });
        unit.ranges = subtract(unit.ranges, taken);
        if (!unit.ranges.empty()) {
            split.push_back(std::move(unit));
            splitUnitOf.push_back(unitOf[m]);
        }
    }
    modules = std::move(split);
    unitOf = std::move(splitUnitOf);
}

ObjectCode objectCodeOf(const debuginfo::DebugInfo& info)
{
    ObjectCode code;
    for (const di::Function& f : info.functions) {
        std::vector<AddressSpan> ranges = rangesOf(f.ranges);
        if (!ranges.empty())
            code.functions.push_back(CodeModule { f.name, std::move(ranges), -1, false });
    }
    std::vector<di::Segment> segments = info.segments;
    for (const di::Segment& s : segments) {
        if (!s.executable)
            continue;
        code.code.start = code.code.end ? std::min(code.code.start, s.address) : s.address;
        code.code.end = std::max(code.code.end, s.address + s.memSize);
    }
    code.addressOfOffset = [segments](uint64_t offset) -> std::optional<uint64_t> {
        for (const di::Segment& s : segments) {
            if (s.executable && offset >= s.fileOffset && offset < s.fileOffset + s.fileSize)
                return s.address + (offset - s.fileOffset);
        }
        return std::nullopt;
    };
    return code;
}

} // namespace ppe::formatter
