// Compile units, functions and line tables from DWARF through LLVM's DWARFContext.
#pragma once

#include "address_ranges.h"
#include "elf_file.h"
#include "symbols.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>

#include <map>

namespace ppe::debuginfo {

// Adds to a DebugInfo (whose segments are already known) what the DWARF of one file says: units,
// the functions with code (named from their symbols where DWARF gives no linkage name), line
// ranges, and the inlined code; with Options::onlyWanted those of the wanted units only (the
// others' CompileUnit::detailed is false). Damage becomes warnings (at most 20).
class DwarfReader {
public:
    DwarfReader(DebugInfo& info, const Options& options, const std::vector<Symbol>& symbols);
    void read(const obj::ObjectFile& dwarf);

    IntervalSet& inlined() { return m_inlined; }

private:
    void warn(const std::string& text);
    bool loaded(uint64_t address) const;
    std::vector<AddressRange> rangesOf(const llvm::DWARFDie& die, uint64_t* entry = nullptr);
    bool wanted(const std::vector<AddressRange>& ranges) const;
    int addUnit(llvm::DWARFUnit& unit);
    void readUnit(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit, int index);
    void nameFunction(const llvm::DWARFDie& die, uint64_t entry, Function& f) const;
    void addFunction(const llvm::DWARFDie& die, int unit, std::vector<AddressRange> ranges, uint64_t entry);
    void visit(const llvm::DWARFDie& parent, int unit, int outer);
    void visitSubprogram(const llvm::DWARFDie& die, int unit, int outer);
    const llvm::DWARFDebugLine::LineTable* lineTableOf(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit);
    void readLines(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit, int index);
    int fileIndex(const llvm::DWARFDebugLine::LineTable& table, uint64_t file, const std::string& compDir,
        std::map<uint64_t, int>& files);

    DebugInfo& m_info;
    const Options& m_options;
    IntervalSet m_inlined;
    std::map<uint64_t, const Symbol*> m_symbolAt;
    std::map<std::string, int> m_fileIds;
    llvm::StringRef m_debugLine; // decompressed
    std::string m_debugLineStorage; // where it was decompressed to
    bool m_littleEndian = true;
    bool m_fortran = false; // the unit being read is Fortran
};

} // namespace ppe::debuginfo
