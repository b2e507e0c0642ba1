#include "ppe/formatter/instructions.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace ppe::formatter {

namespace {

    // Bytes [start, end) of a line's code inside one instruction (or in none): hits on them go to
    // that line's instruction row `slot`.
    struct Piece {
        uint64_t start;
        uint64_t end;
        LineRow* row;
        size_t slot;
    };

    // The rows with hits of a module's analysis, by (file name, line).
    std::map<std::pair<std::string, int>, LineRow*> rowsWithHits(ModuleLines& lines)
    {
        std::map<std::pair<std::string, int>, LineRow*> rows;
        for (FileLines& file : lines.files) {
            for (LineRow& row : file.rows) {
                if (row.hits > 0)
                    rows.emplace(std::pair(file.name, row.line), &row);
            }
        }
        return rows;
    }

    class PieceMaker {
    public:
        explicit PieceMaker(const Code& code)
            : m_code(code)
        {
        }

        // Cuts [lo, hi), code of `row`, at the instructions' bounds.
        void add(uint64_t lo, uint64_t hi, LineRow* row)
        {
            auto i = std::upper_bound(m_code.begin(), m_code.end(), lo,
                [](uint64_t address, const debuginfo::Instruction& x) { return address < x.address; });
            if (i != m_code.begin())
                --i;
            uint64_t at = lo;
            for (; i != m_code.end() && i->address < hi; ++i) {
                if (i->address + i->size <= at)
                    continue;
                if (i->address > at)
                    piece(at, i->address, row, at, "(no instruction)");
                const uint64_t end = std::min(hi, i->address + i->size);
                piece(std::max(at, i->address), end, row, i->address, i->text);
                at = end;
            }
            if (at < hi)
                piece(at, hi, row, at, "(no instruction)");
        }

        std::vector<Piece> take()
        {
            std::sort(
                m_pieces.begin(), m_pieces.end(), [](const Piece& a, const Piece& b) { return a.start < b.start; });
            return std::move(m_pieces);
        }

    private:
        void piece(uint64_t start, uint64_t end, LineRow* row, uint64_t address, const std::string& text)
        {
            const auto [slot, added] = m_slots.try_emplace(std::pair(row, address), row->instructions.size());
            if (added)
                row->instructions.push_back(InstructionRow { address, text, 0 });
            m_pieces.push_back(Piece { start, end, row, slot->second });
        }

        const Code& m_code;
        std::map<std::pair<LineRow*, uint64_t>, size_t> m_slots;
        std::vector<Piece> m_pieces;
    };

    // The pieces of the module's lines with hits, cut at the instructions' bounds.
    std::vector<Piece> piecesOf(ModuleLines& lines, const CodeModule& module, const LineTable& table, const Code& code)
    {
        const auto rows = rowsWithHits(lines);
        PieceMaker maker(code);
        for (const AddressSpan& r : module.ranges) {
            auto it = std::upper_bound(table.ranges.begin(), table.ranges.end(), r.start,
                [](uint64_t address, const LineSpan& l) { return address < l.start; });
            if (it != table.ranges.begin())
                --it;
            for (; it != table.ranges.end() && it->start < r.end; ++it) {
                const uint64_t lo = std::max(r.start, it->start);
                const uint64_t hi = std::min(r.end, it->end);
                const std::string& file = size_t(it->file) < table.files.size() ? table.files[it->file] : "";
                const auto row = rows.find(std::pair(file, it->line));
                if (hi > lo && row != rows.end())
                    maker.add(lo, hi, row->second);
            }
        }
        return maker.take();
    }

    // Spreads a bin over the pieces it overlaps in proportion to their bytes, as buildReport does.
    void attribute(const Bin& bin, uint32_t width, std::vector<Piece>& pieces)
    {
        const uint64_t end = bin.address + width;
        auto p = std::upper_bound(pieces.begin(), pieces.end(), bin.address,
            [](uint64_t address, const Piece& x) { return address < x.start; });
        if (p != pieces.begin())
            --p;
        for (; p != pieces.end() && p->start < end; ++p) {
            const uint64_t lo = std::max(bin.address, p->start);
            const uint64_t hi = std::min(end, p->end);
            if (hi > lo)
                p->row->instructions[p->slot].hits += double(bin.count) * double(hi - lo) / double(width);
        }
    }

    void sortRows(ModuleLines& lines)
    {
        for (FileLines& file : lines.files) {
            for (LineRow& row : file.rows)
                std::sort(row.instructions.begin(), row.instructions.end(),
                    [](const InstructionRow& a, const InstructionRow& b) { return a.address < b.address; });
        }
    }

    bool hasListing(const CodeModule& module, const std::vector<Code>& listed)
    {
        return module.lineTable >= 0 && size_t(module.lineTable) < listed.size() && !listed[module.lineTable].empty();
    }

    // The code of the analysed modules that no listing gives, disassembled from `image` in one pass.
    Code disassembled(const Report& report, const std::vector<CodeModule>& modules, const std::vector<Code>& listed,
        const std::string& image, std::vector<std::string>& warnings)
    {
        std::vector<debuginfo::AddressRange> ranges;
        std::vector<std::string> names;
        for (const ModuleLines& lines : report.lines) {
            const CodeModule& module = modules.at(lines.module);
            if (hasListing(module, listed))
                continue;
            names.push_back(lines.name);
            for (const AddressSpan& r : module.ranges)
                ranges.push_back(debuginfo::AddressRange { r.start, r.end });
        }
        if (ranges.empty())
            return {};
        if (image.empty()) {
            warnings.push_back(fmt::format("--asm: no instructions for {} (no listing, and the executable is not "
                                           "the profile's build or cannot be read)",
                fmt::join(names, ", ")));
            return {};
        }
        std::sort(ranges.begin(), ranges.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
        auto code = debuginfo::disassemble(image, ranges);
        if (!code) {
            warnings.push_back(
                fmt::format("--asm: {}; no instructions for {}", code.error().str(), fmt::join(names, ", ")));
            return {};
        }
        return std::move(*code);
    }

} // namespace

void addInstructions(
    ModuleLines& lines, const Profile& profile, const CodeModule& module, const LineTable& table, const Code& code)
{
    if (code.empty() || profile.binWidth == 0)
        return;
    std::vector<Piece> pieces = piecesOf(lines, module, table, code);
    for (const Bin& bin : profile.bins)
        attribute(bin, profile.binWidth, pieces);
    sortRows(lines);
}

void addReportInstructions(Report& report, const std::vector<CodeModule>& modules, const std::vector<LineTable>& tables,
    const std::vector<Code>& listed, const std::string& image, std::vector<std::string>& warnings)
{
    const Code code = disassembled(report, modules, listed, image, warnings);
    for (ModuleLines& lines : report.lines) {
        const CodeModule& module = modules.at(lines.module);
        if (module.lineTable < 0 || size_t(module.lineTable) >= tables.size())
            continue;
        addInstructions(lines, report.profile, module, tables[module.lineTable],
            hasListing(module, listed) ? listed[module.lineTable] : code);
    }
}

} // namespace ppe::formatter
