#include "dwarf_reader.h"

#include "demangle.h"
#include "line_table_check.h"

#include <algorithm>
#include <cstring>

namespace ppe::debuginfo {

using llvm::DWARFDie;

namespace {

    bool isFortran(const DWARFDie& unit)
    {
        const auto language = llvm::dwarf::toUnsigned(unit.find(llvm::dwarf::DW_AT_language));
        return language && llvm::dwarf::isFortran(llvm::dwarf::SourceLanguage(*language));
    }

    // The name of the Fortran module `die` is declared in, or "".
    std::string moduleOf(const DWARFDie& die)
    {
        const DWARFDie parent = die.getParent();
        if (!parent || parent.getTag() != llvm::dwarf::DW_TAG_module)
            return "";
        return llvm::dwarf::toString(parent.find(llvm::dwarf::DW_AT_name), "");
    }

} // namespace

DwarfReader::DwarfReader(DebugInfo& info, const Options& options, const std::vector<Symbol>& symbols)
    : m_info(info)
    , m_options(options)
{
    for (const Symbol& s : symbols)
        m_symbolAt.emplace(s.address, &s);
}

void DwarfReader::read(const obj::ObjectFile& dwarf)
{
    if (const std::string problem = compressionProblem(dwarf); !problem.empty()) {
        warn(problem);
        return;
    }
    if (Result<llvm::StringRef> debugLine = debugSectionContents(dwarf, ".debug_line", m_debugLineStorage))
        m_debugLine = *debugLine;
    else
        warn(debugLine.error().message);
    m_littleEndian = dwarf.isLittleEndian();
    auto ctx = llvm::DWARFContext::create(
        dwarf, llvm::DWARFContext::ProcessDebugRelocations::Ignore, nullptr, "",
        [this](llvm::Error e) { warn(message(std::move(e))); }, [this](llvm::Error e) { warn(message(std::move(e))); });
    // Every unit's top DIE first (cheap), then the DIE trees and line tables of those wanted.
    std::vector<std::pair<llvm::DWARFUnit*, int>> units; // with its index in m_info.units
    for (const auto& unit : ctx->compile_units()) {
        if (const int index = addUnit(*unit); index >= 0)
            units.emplace_back(unit.get(), index);
    }
    for (const auto& [unit, index] : units) {
        CompileUnit& cu = m_info.units[size_t(index)];
        cu.detailed = !m_options.onlyWanted || cu.ranges.empty() || wanted(cu.ranges);
        if (cu.detailed)
            readUnit(*ctx, *unit, index);
    }
}

// Whether one of `ranges` (sorted) meets one of Options::wanted (sorted, non-overlapping).
bool DwarfReader::wanted(const std::vector<AddressRange>& ranges) const
{
    const std::vector<AddressRange>& w = m_options.wanted;
    for (const AddressRange& r : ranges) {
        // The first wanted range that ends after r.start: it meets r if it starts before r.end.
        auto it = std::upper_bound(
            w.begin(), w.end(), r.start, [](uint64_t a, const AddressRange& x) { return a < x.end; });
        if (it != w.end() && it->start < r.end)
            return true;
    }
    return false;
}

void DwarfReader::warn(const std::string& text)
{
    if (m_info.warnings.size() < 20)
        m_info.warnings.push_back(m_info.debugPath + ": " + text);
}

bool DwarfReader::loaded(uint64_t address) const { return isLoadedCode(m_info.segments, address); }

// The die's code, sorted; `entry`, if given, gets the address the code is entered at
// (DW_AT_low_pc, or the first of DW_AT_ranges: a .cold part may lie below it).
std::vector<AddressRange> DwarfReader::rangesOf(const DWARFDie& die, uint64_t* entry)
{
    std::vector<AddressRange> out;
    auto ranges = die.getAddressRanges();
    if (!ranges) {
        llvm::consumeError(ranges.takeError());
        return out;
    }
    for (const llvm::DWARFAddressRange& r : *ranges) {
        if (r.HighPC > r.LowPC && loaded(r.LowPC))
            out.push_back(AddressRange { r.LowPC, r.HighPC });
    }
    if (entry && !out.empty()) {
        *entry = out.front().start;
        if (auto lowPc = llvm::dwarf::toAddress(die.find(llvm::dwarf::DW_AT_low_pc)); lowPc && loaded(*lowPc))
            *entry = *lowPc;
    }
    sortAndMerge(out);
    return out;
}

// The unit from its top DIE alone (LLVM parses the rest of its DIEs when they are asked for);
// its index in m_info.units, or -1 when it has none.
int DwarfReader::addUnit(llvm::DWARFUnit& unit)
{
    const DWARFDie die = unit.getUnitDIE(true);
    if (!die)
        return -1;
    CompileUnit cu;
    cu.name = llvm::dwarf::toString(die.find(llvm::dwarf::DW_AT_name), "");
    const char* dir = unit.getCompilationDir();
    cu.compDir = dir ? dir : "";
    cu.producer = llvm::dwarf::toString(die.find(llvm::dwarf::DW_AT_producer), "");
    cu.ranges = rangesOf(die);
    m_info.units.push_back(std::move(cu));
    return int(m_info.units.size()) - 1;
}

// The unit's functions, inlined code and line rows.
void DwarfReader::readUnit(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit, int index)
{
    const DWARFDie die = unit.getUnitDIE(false);
    if (!die)
        return;
    m_fortran = isFortran(die);
    visit(die, index, -1);
    if (m_options.lines)
        readLines(ctx, unit, index);
}

// C and C++ names come from the linkage name (or the symbol at the entry), demangled; Fortran
// module procedures and the main program as gdb shows them: `kern::smooth` for __kern_MOD_smooth,
// the program's own name for MAIN__ (other procedures keep their symbol, `gram_`, as in a map).
void DwarfReader::nameFunction(const DWARFDie& die, uint64_t entry, Function& f) const
{
    const char* linkage = die.getName(llvm::DINameKind::LinkageName);
    const char* shortName = die.getShortName();
    std::string symbol;
    if (auto it = m_symbolAt.find(entry); it != m_symbolAt.end())
        symbol = it->second->name;
    const std::string mangled = linkage && (!shortName || std::strcmp(linkage, shortName) != 0) ? linkage : symbol;
    const std::string module = m_fortran ? moduleOf(die) : "";
    if (shortName && *shortName && (!module.empty() || (m_fortran && die.find(llvm::dwarf::DW_AT_main_subprogram))))
        f.name = fortranName(module, shortName);
    else
        f.name = !mangled.empty() ? demangled(mangled) : shortName ? shortName : "";
    if (f.name.empty())
        f.name = "(unnamed function)";
    f.linkageName = mangled != f.name ? mangled : "";
}

void DwarfReader::addFunction(const DWARFDie& die, int unit, std::vector<AddressRange> ranges, uint64_t entry)
{
    Function f;
    nameFunction(die, entry, f);
    f.ranges = std::move(ranges);
    f.unit = unit;
    f.line = int(die.getDeclLine());
    m_info.functions.push_back(std::move(f));
}

void DwarfReader::visitSubprogram(const DWARFDie& die, int unit, int outer)
{
    uint64_t entry = 0;
    std::vector<AddressRange> ranges = rangesOf(die, &entry);
    if (ranges.empty())
        return; // a declaration, or discarded code
    if (outer < 0)
        addFunction(die, unit, ranges, entry);
    // Inside: inlined code and nested subprograms, which only the line analysis uses (a nested
    // subprogram is never a function of its own: its code is named by its symbol).
    if (m_options.lines)
        visit(die, unit, outer < 0 ? int(m_info.functions.size()) - 1 : outer);
}

// Subprograms with code, and the inlined code in them, wherever they nest.
void DwarfReader::visit(const DWARFDie& parent, int unit, int outer)
{
    for (DWARFDie child = parent.getFirstChild(); child && !child.isNULL(); child = child.getSibling()) {
        switch (child.getTag()) {
        case llvm::dwarf::DW_TAG_subprogram:
            visitSubprogram(child, unit, outer);
            break;
        case llvm::dwarf::DW_TAG_inlined_subroutine:
            for (const AddressRange& r : rangesOf(child))
                m_inlined.ranges.push_back(r);
            visit(child, unit, outer);
            break;
        case llvm::dwarf::DW_TAG_lexical_block:
        case llvm::dwarf::DW_TAG_namespace:
        case llvm::dwarf::DW_TAG_module:
        case llvm::dwarf::DW_TAG_class_type:
        case llvm::dwarf::DW_TAG_structure_type:
        case llvm::dwarf::DW_TAG_try_block:
        case llvm::dwarf::DW_TAG_catch_block:
            visit(child, unit, outer);
            break;
        default:
            break;
        }
    }
}

// The unit's line table, after its header was checked; nullptr when there is none or it is damaged.
const llvm::DWARFDebugLine::LineTable* DwarfReader::lineTableOf(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit)
{
    const auto stmtList = llvm::dwarf::toSectionOffset(unit.getUnitDIE(false).find(llvm::dwarf::DW_AT_stmt_list));
    if (!stmtList)
        return nullptr;
    if (!lineTableHeaderIsSafe(m_debugLine, *stmtList, m_littleEndian)) {
        warn("line table at offset " + std::to_string(*stmtList) + ": damaged header, not read");
        return nullptr;
    }
    auto parsed = ctx.getLineTableForUnit(&unit, [this](llvm::Error e) { warn(message(std::move(e))); });
    if (!parsed) {
        warn(message(parsed.takeError()));
        return nullptr;
    }
    return *parsed;
}

// The index in m_info.files of the table's file `file`; `files` caches the answers for one table.
int DwarfReader::fileIndex(const llvm::DWARFDebugLine::LineTable& table, uint64_t file, const std::string& compDir,
    std::map<uint64_t, int>& files)
{
    auto [it, added] = files.try_emplace(file, 0);
    if (!added)
        return it->second;
    std::string name;
    if (!table.getFileNameByIndex(file, compDir, llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name))
        name = "?";
    auto [global, fresh] = m_fileIds.try_emplace(name, int(m_info.files.size()));
    if (fresh)
        m_info.files.push_back(name);
    it->second = global->second;
    return it->second;
}

void DwarfReader::readLines(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit, int index)
{
    const llvm::DWARFDebugLine::LineTable* table = lineTableOf(ctx, unit);
    if (!table)
        return;
    const std::string compDir = m_info.units[index].compDir;
    std::map<uint64_t, int> files;
    for (const auto& sequence : table->Sequences) {
        if (!sequence.isValid() || !loaded(sequence.LowPC))
            continue;
        for (unsigned i = sequence.FirstRowIndex; i + 1 < sequence.LastRowIndex; ++i) {
            const auto& row = table->Rows[i];
            const auto& next = table->Rows[i + 1];
            if (row.EndSequence || next.Address.Address <= row.Address.Address)
                continue;
            m_info.lines.push_back(LineRange { row.Address.Address, next.Address.Address,
                fileIndex(*table, row.File, compDir, files), int(row.Line) });
        }
    }
}

} // namespace ppe::debuginfo
