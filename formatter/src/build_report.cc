#include "ppe/formatter/build_report.h"

#include "missing_samples.h"
#include "paths.h"
#include "sampled_time.h"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <set>

namespace ppe::formatter {

double binomialErrorPercent(double hits, double n, double weight)
{
    if (n <= 0)
        return 0;
    const double p = hits / n;
    return 100.0 * std::sqrt(p * (1.0 - p) * std::max(weight, 1.0) / n);
}

double splitErrorPercent(double hits, double splitHits, double n, double weight)
{
    if (n <= 0)
        return 0;
    const double binomial = binomialErrorPercent(hits, n, weight);
    const double split = 100.0 * splitHits / n / std::sqrt(12.0);
    return std::sqrt(binomial * binomial + split * split);
}

Share shareOf(double hits, double n, double weight)
{
    if (n <= 0)
        return Share { hits, 0, 0 };
    return Share { hits, 100.0 * hits / n, binomialErrorPercent(hits, n, weight) };
}

namespace {

    // What the shares are of: `n` samples that stand for `weight` intervals each on average.
    struct Base {
        double n;
        double weight;
    };

    // A range of code and what owns it (a module, or a line within one module's analysis).
    struct Piece {
        AddressSpan range;
        size_t owner;
    };

    std::vector<Piece> piecesByAddress(const std::vector<CodeModule>& modules)
    {
        std::vector<Piece> pieces;
        for (size_t m = 0; m < modules.size(); ++m) {
            for (const AddressSpan& r : modules[m].ranges)
                pieces.push_back(Piece { r, m });
        }
        std::sort(
            pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.range.start < b.range.start; });
        return pieces;
    }

    // Spreads one bin over the pieces (sorted, non-overlapping) it overlaps, in proportion to the
    // bytes each owns; returns the part no piece owns. With `splitHits`, the shares of a bin that
    // several owners took are added to theirs there too.
    double attributeBin(const Bin& bin, uint32_t width, const std::vector<Piece>& pieces, std::vector<double>& hits,
        bool& split, std::vector<double>* splitHits = nullptr)
    {
        const uint64_t end = bin.address + width;
        auto first = std::upper_bound(pieces.begin(), pieces.end(), bin.address,
            [](uint64_t address, const Piece& p) { return address < p.range.start; });
        if (first != pieces.begin())
            --first;
        std::vector<std::pair<size_t, double>> shares;
        double owned = 0;
        for (auto p = first; p != pieces.end() && p->range.start < end; ++p) {
            const uint64_t lo = std::max(bin.address, p->range.start);
            const uint64_t hi = std::min(end, p->range.end);
            if (hi <= lo)
                continue;
            const double share = double(bin.count) * double(hi - lo) / double(width);
            hits[p->owner] += share;
            owned += share;
            shares.emplace_back(p->owner, share);
        }
        const bool several
            = std::any_of(shares.begin(), shares.end(), [&](const auto& s) { return s.first != shares.front().first; });
        split |= several;
        if (several && splitHits) {
            for (const auto& [owner, share] : shares)
                (*splitHits)[owner] += share;
        }
        return double(bin.count) - owned;
    }

    std::vector<ModuleRow> rankModules(const std::vector<CodeModule>& modules, const std::vector<double>& hits,
        const std::vector<double>& splitHits, Base base, double all)
    {
        std::vector<ModuleRow> rows;
        for (size_t m = 0; m < modules.size(); ++m) {
            if (hits[m] <= 0)
                continue;
            const Share share = shareOf(hits[m], base.n, base.weight);
            const double error
                = splitHits[m] > 0 ? splitErrorPercent(hits[m], splitHits[m], base.n, base.weight) : share.error;
            rows.push_back(ModuleRow { m, modules[m].name, share.hits, share.percent, error, 0, modules[m].address(),
                modules[m].size(), all > 0 ? 100.0 * hits[m] / all : 0, splitHits[m],
                std::max<size_t>(1, modules[m].ranges.size()), !modules[m].wholeFile, modules[m].unit });
        }
        std::stable_sort(rows.begin(), rows.end(), [](const ModuleRow& a, const ModuleRow& b) {
            return a.hits != b.hits ? a.hits > b.hits : a.address < b.address;
        });
        double accumulated = 0;
        for (ModuleRow& row : rows) {
            accumulated += row.hits;
            row.accumulated = 100.0 * accumulated / base.n;
        }
        return rows;
    }

    // The pieces of `table` inside `module`'s code, each owned by its index in `places`, which holds
    // the distinct (file, line) pairs met.
    std::vector<Piece> linePieces(const CodeModule& module, const LineTable& table,
        std::vector<std::pair<int, int>>& places, std::map<std::pair<int, int>, std::set<int>>* inlinedInto = nullptr)
    {
        std::map<std::pair<int, int>, size_t> index;
        std::vector<Piece> pieces;
        for (const AddressSpan& r : module.ranges) {
            auto it = std::upper_bound(table.ranges.begin(), table.ranges.end(), r.start,
                [](uint64_t address, const LineSpan& l) { return address < l.start; });
            if (it != table.ranges.begin())
                --it;
            for (; it != table.ranges.end() && it->start < r.end; ++it) {
                const uint64_t lo = std::max(r.start, it->start);
                const uint64_t hi = std::min(r.end, it->end);
                if (hi <= lo)
                    continue;
                const auto [slot, added] = index.try_emplace({ it->file, it->line }, places.size());
                if (added)
                    places.emplace_back(it->file, it->line);
                pieces.push_back(Piece { { lo, hi }, slot->second });
                if (inlinedInto && it->inlinedInto >= 0)
                    (*inlinedInto)[{ it->file, it->line }].insert(it->inlinedInto);
            }
        }
        return pieces;
    }

    std::string textOf(const LineTable& table, int file, int line)
    {
        if (size_t(file) >= table.text.size() || line < 1 || size_t(line) > table.text[file].size())
            return "";
        return table.text[file][line - 1];
    }

    // The first and last line of the table's own file (file 0) that have code in `module`.
    std::pair<int, int> ownSpan(const CodeModule& module, const LineTable& table)
    {
        std::vector<std::pair<int, int>> places;
        linePieces(module, table, places);
        std::pair<int, int> span { 0, 0 };
        for (const auto& [file, line] : places) {
            if (file != 0 || line < 1)
                continue;
            span.first = span.first ? std::min(span.first, line) : line;
            span.second = std::max(span.second, line);
        }
        return span;
    }

    // A function's text starts after the function before it in its file (its heading and comments
    // come with it) unless that is more than kMaxHeadingLines above its entry line (the function
    // before it is in another module, or none is known): then kHeadingLines above the entry.
    constexpr int kMaxHeadingLines = 12;
    constexpr int kHeadingLines = 3;

    // The line of the table's own file (file 0) that a function's entry (its lowest address) comes
    // from: its opening line, where the compiler puts the prologue. 0 when unknown.
    int entryLine(const CodeModule& module, const LineTable& table)
    {
        std::vector<std::pair<int, int>> places;
        const std::vector<Piece> pieces = linePieces(module, table, places);
        const auto entry = std::min_element(
            pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.range.start < b.range.start; });
        if (entry == pieces.end() || places[entry->owner].first != 0)
            return 0;
        return places[entry->owner].second;
    }

    // Where a function module's text starts (PPE's /SEPARATE modules); code of the file inlined
    // from further up is listed apart.
    int firstLineOfFunction(const std::vector<CodeModule>& modules, const std::vector<LineTable>& tables, size_t m)
    {
        const CodeModule& module = modules[m];
        const LineTable& table = tables[module.lineTable];
        const int entry = entryLine(module, table);
        const int first = entry ? entry : ownSpan(module, table).first;
        int after = 0;
        for (size_t o = 0; o < modules.size(); ++o) {
            if (o == m || modules[o].lineTable != module.lineTable)
                continue;
            const int last = ownSpan(modules[o], table).second;
            if (last < first)
                after = std::max(after, last);
        }
        if (first - (after + 1) > kMaxHeadingLines)
            return std::max(1, first - kHeadingLines);
        return after + 1;
    }

    // Hits per (file, line) of one module: file -> line -> (hits, has code).
    struct LineHits {
        double hits = 0;
        bool code = false;
        double split = 0; // of `hits`, from bins split between this line and others
    };
    using FileHits = std::map<int, std::map<int, LineHits>>;

    // Builds the rows of a module's analysis, accumulating the % of the module's hits as it goes.
    class RowMaker {
    public:
        RowMaker(const LineTable& table, double moduleHits)
            : m_table(table)
            , m_moduleHits(moduleHits)
        {
        }

        void add(FileLines& file, int f, int line, const LineHits& cell)
        {
            m_accumulated += cell.hits;
            const double percent = m_moduleHits > 0 ? 100.0 * m_accumulated / m_moduleHits : 0;
            file.rows.push_back(
                LineRow { line, textOf(m_table, f, line), cell.hits, percent, cell.code, cell.split, {} });
        }

    private:
        const LineTable& m_table;
        double m_moduleHits;
        double m_accumulated = 0;
    };

    FileLines fileLines(const LineTable& table, int f, bool own)
    {
        return FileLines { size_t(f) < table.files.size() ? table.files[f] : "",
            size_t(f) < table.textPaths.size() ? table.textPaths[f] : "", own, {}, {} };
    }

    bool isBlank(const std::string& text) { return text.find_first_not_of(" \t") == std::string::npos; }

    // The module's own file: every line (a compilation unit) or its first to last line of code.
    void addOwnFile(ModuleLines& out, const CodeModule& module, const LineTable& table, const FileHits& byFile,
        int firstLine, RowMaker& rows)
    {
        static const std::map<int, LineHits> kNone;
        const auto found = byFile.find(0);
        const auto& own = found == byFile.end() ? kNone : found->second;
        int first = 1, last = 0;
        if (!own.empty()) {
            last = own.rbegin()->first;
            if (!module.wholeFile)
                first = firstLine;
        }
        if (module.wholeFile && !table.text.empty())
            last = std::max(last, int(table.text[0].size()));
        if (last < first)
            return;
        FileLines file = fileLines(table, 0, true);
        while (!module.wholeFile && first < last && !own.contains(first) && isBlank(textOf(table, 0, first)))
            ++first;
        // Past the text every line for a while, then lines with hits: not every line number an input names.
        const int dense = int(std::min<int64_t>(last, int64_t(table.text.empty() ? 0 : table.text[0].size()) + 10000));
        for (int line = first; line <= dense; ++line) {
            auto it = own.find(line);
            rows.add(file, 0, line, it == own.end() ? LineHits {} : it->second);
        }
        for (auto it = own.upper_bound(std::max(dense, first - 1)); it != own.end() && it->first <= last; ++it)
            rows.add(file, 0, it->first, it->second);
        out.files.push_back(std::move(file));
    }

    // Other files: the lines that took hits, under their own name, with the functions their code
    // is inlined into; and the own file's lines above `ownFrom` (code inlined from further up).
    void addOtherFiles(ModuleLines& out, const LineTable& table, const FileHits& byFile,
        const std::map<std::pair<int, int>, std::set<int>>& inlinedInto, int ownFrom, RowMaker& rows)
    {
        for (const auto& [f, lines] : byFile) {
            FileLines file = fileLines(table, f, false);
            std::set<int> callers;
            for (const auto& [line, cell] : lines) {
                if (cell.hits <= 0 || (f == 0 && line >= ownFrom))
                    continue;
                rows.add(file, f, line, cell);
                if (auto it = inlinedInto.find({ f, line }); it != inlinedInto.end())
                    callers.insert(it->second.begin(), it->second.end());
            }
            for (int c : callers) {
                if (size_t(c) < table.functions.size())
                    file.inlinedInto.push_back(table.functions[c]);
            }
            if (!file.rows.empty())
                out.files.push_back(std::move(file));
        }
    }

    // The file of a function's lowest address whose code is its own (not inlined into it from a
    // header: gcc may open a function with an inlined helper's code), else of its lowest address.
    int entryFileOf(const CodeModule& module, const LineTable& table)
    {
        int first = -1;
        for (const AddressSpan& r : module.ranges) {
            auto it = std::upper_bound(table.ranges.begin(), table.ranges.end(), r.start,
                [](uint64_t address, const LineSpan& l) { return address < l.start; });
            if (it != table.ranges.begin())
                --it;
            for (; it != table.ranges.end() && it->start < r.end; ++it) {
                if (it->end <= r.start)
                    continue;
                if (it->inlinedInto < 0)
                    return it->file;
                first = first < 0 ? it->file : first;
            }
        }
        return first;
    }

    // A unit's own file where it has code; else (a function, or a unit that only includes its code,
    // as libm's s_sin-fma.c does s_sin.c) the file of its entry.
    std::string entryFile(
        const CodeModule& module, const LineTable& table, const std::vector<std::pair<int, int>>& places)
    {
        const bool ownCode = std::any_of(places.begin(), places.end(), [](const auto& p) { return p.first == 0; });
        const int f = module.wholeFile && ownCode ? 0 : entryFileOf(module, table);
        return f >= 0 && size_t(f) < table.files.size() ? table.files[size_t(f)] : "";
    }

    ModuleLines moduleLines(const Profile& profile, const ModuleRow& row, const CodeModule& module,
        const LineTable& table, int firstLine, bool& split)
    {
        ModuleLines out { row.module, row.name, table.origin, row.hits, 0, 0, 0, {} };
        std::vector<std::pair<int, int>> places;
        std::map<std::pair<int, int>, std::set<int>> inlinedInto;
        const std::vector<Piece> pieces = linePieces(module, table, places, &inlinedInto);
        std::vector<double> hits(places.size(), 0.0), splitHits(places.size(), 0.0);
        for (const Bin& bin : profile.bins)
            attributeBin(bin, profile.binWidth, pieces, hits, split, &splitHits);

        FileHits byFile;
        double lined = 0;
        for (size_t i = 0; i < places.size(); ++i) {
            auto& cell = byFile[places[i].first][places[i].second];
            cell.hits += hits[i];
            cell.code = true;
            cell.split += splitHits[i];
            out.splitHits += splitHits[i];
            lined += hits[i];
            out.busiest = std::max(out.busiest, cell.hits);
        }
        out.withoutLine = std::max(0.0, row.hits - lined);
        out.entryFile = entryFile(module, table, places);
        RowMaker rows(table, row.hits);
        addOwnFile(out, module, table, byFile, firstLine, rows);
        addOtherFiles(out, table, byFile, inlinedInto, module.wholeFile ? 1 : firstLine, rows);
        return out;
    }

    // The busiest of a shared object's addresses that no function owns, as shares of `base`.
    void addHottestAddresses(ObjectRow& row, std::vector<AddressRow> unowned, Base base, size_t top)
    {
        std::stable_sort(
            unowned.begin(), unowned.end(), [](const AddressRow& a, const AddressRow& b) { return a.hits > b.hits; });
        if (unowned.size() > top) {
            row.moreAddresses = unowned.size() - top;
            unowned.resize(top);
        }
        for (AddressRow& a : unowned) {
            const Share share = shareOf(a.hits, base.n, base.weight);
            a.percent = share.percent;
            a.error = share.error;
        }
        row.hottest = std::move(unowned);
    }

    // One shared object's row: its samples by file offset become one-byte bins at link-time
    // addresses, attributed to its functions like the executable's bins to modules.
    void addFunctions(ObjectRow& row, const SharedObject& object, const ObjectCode& code, Base base, size_t top)
    {
        const std::vector<Piece> pieces = piecesByAddress(code.functions);
        std::vector<double> hits(code.functions.size(), 0.0);
        bool split = false;
        double without = 0;
        std::vector<AddressRow> unowned;
        for (const ObjectSamples& s : object.hitsByOffset) {
            const std::optional<uint64_t> address = code.addressOfOffset(s.fileOffset);
            const double left
                = address ? attributeBin(Bin { *address, s.count }, 1, pieces, hits, split) : double(s.count);
            if (left > 0)
                unowned.push_back(AddressRow { address.value_or(s.fileOffset), address.has_value(), left });
            without += left;
        }
        row.withoutFunction = shareOf(without, base.n, base.weight);
        addHottestAddresses(row, std::move(unowned), base, top);
        for (size_t f = 0; f < hits.size(); ++f) {
            if (hits[f] <= 0)
                continue;
            const Share share = shareOf(hits[f], base.n, base.weight);
            row.functions.push_back(FunctionRow { code.functions[f].name, share.hits, share.percent, share.error,
                code.functions[f].address(), code.functions[f].size() });
        }
        std::stable_sort(row.functions.begin(), row.functions.end(),
            [](const FunctionRow& a, const FunctionRow& b) { return a.hits > b.hits; });
        if (row.functions.size() > top) {
            row.moreFunctions = row.functions.size() - top;
            for (size_t f = top; f < row.functions.size(); ++f)
                row.moreFunctionsHits += row.functions[f].hits;
            row.functions.resize(top);
        }
    }

    Totals totalsOf(const Profile& p)
    {
        Totals t;
        t.system = p.counts[kShared] + p.counts[kVdso];
        t.other = p.counts[kAnon] + p.counts[kUnknown] + p.counts[kLost];
        t.overflow = p.counts[kAbove];
        t.underflow = p.counts[kBelow];
        const double total = p.total ? double(p.total) : 1.0;
        t.programPercent = 100.0 * double(p.inRange() + t.underflow + t.overflow) / total;
        t.librariesPercent = 100.0 * double(t.system) / total;
        t.otherPercent = 100.0 * double(t.other) / total;
        t.cpuSeconds = p.cpuUser + p.cpuSystem;
        t.cpuUserPercent = t.cpuSeconds > 0 ? 100.0 * p.cpuUser / t.cpuSeconds : 0;
        t.cpuSystemPercent = t.cpuSeconds > 0 ? 100.0 * p.cpuSystem / t.cpuSeconds : 0;
        t.collectorCpuSeconds = p.collectorCpuTime;
        addSampledTime(p, t); // perf's task-clock events exclude the kernel: system time has no samples
        t.intervalMs = double(p.interval) / 10000.0;
        t.lastAddress = p.rangeEnd - 1;
        t.rangeBytes = p.rangeEnd - p.rangeStart;
        addMissingSamples(p, t);
        return t;
    }

} // namespace

std::vector<size_t> modulesForLineAnalysis(
    const Report& report, const std::vector<CodeModule>& modules, double thresholdPercent)
{
    std::vector<size_t> selected;
    for (const ModuleRow& row : report.modules) {
        if (row.percent >= thresholdPercent && row.module < modules.size() && modules[row.module].lineTable >= 0)
            selected.push_back(row.module);
    }
    return selected;
}

void analyseLines(Report& report, const std::vector<CodeModule>& modules, const std::vector<LineTable>& tables,
    const std::vector<size_t>& selected)
{
    for (const ModuleRow& row : report.modules) {
        if (std::find(selected.begin(), selected.end(), row.module) == selected.end())
            continue;
        const CodeModule& module = modules.at(row.module);
        if (module.lineTable < 0 || size_t(module.lineTable) >= tables.size())
            continue;
        const int firstLine = module.wholeFile ? 1 : firstLineOfFunction(modules, tables, row.module);
        report.lines.push_back(
            moduleLines(report.profile, row, module, tables[module.lineTable], firstLine, report.splitBins));
    }
}

void addSharedObjects(Report& report, const std::function<Result<ObjectCode>(const SharedObject&)>& codeOf,
    double thresholdPercent, size_t topFunctions)
{
    const Base base { double(report.profile.total), report.profile.sampleWeight() };
    if (base.n <= 0)
        return;
    for (const SharedObject& object : report.profile.objects) {
        const Share share = shareOf(double(object.hits), base.n, base.weight);
        if (share.hits <= 0 || share.percent < thresholdPercent)
            continue;
        ObjectRow row { object.path, std::string(baseName(object.path)), object.buildId, share.hits, share.percent,
            share.error, {}, 0, 0, {}, "", {}, 0 };
        Result<ObjectCode> code = codeOf(object);
        if (code)
            addFunctions(row, object, *code, base, topFunctions);
        else
            row.note = code.error().message;
        report.objects.push_back(std::move(row));
    }
    std::stable_sort(report.objects.begin(), report.objects.end(),
        [](const ObjectRow& a, const ObjectRow& b) { return a.hits > b.hits; });
}

Report buildReport(Profile profile, const std::vector<CodeModule>& modules)
{
    Report report;
    const std::vector<Piece> pieces = piecesByAddress(modules);
    std::vector<double> hits(modules.size(), 0.0), splitHits(modules.size(), 0.0);
    double unattributed = 0;
    for (const Bin& bin : profile.bins)
        unattributed += attributeBin(bin, profile.binWidth, pieces, hits, report.splitBins, &splitHits);
    const double n = double(profile.inRange());
    report.unattributed = shareOf(unattributed, n, profile.sampleWeight());
    if (n > 0)
        report.modules
            = rankModules(modules, hits, splitHits, Base { n, profile.sampleWeight() }, double(profile.total));
    report.cpuTime = profile.mode == SampleMode::Cpu;
    if (unattributed > 0.5) {
        report.warnings.push_back(fmt::format("{:.0f} of {:.0f} in-range hits ({:.2f}%) fell where no module's code is "
                                              "(padding between sections, PLT, start-up code or skid)",
            unattributed, n, report.unattributed.percent));
    }
    report.totals = totalsOf(profile);
    if (!report.totals.missingSamples.empty())
        report.warnings.push_back(report.totals.missingSamples);
    report.profile = std::move(profile);
    return report;
}

} // namespace ppe::formatter
