#include "ppe/debuginfo/debug_info.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/CRC.h>
#include <llvm/Support/DataExtractor.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/MemoryBuffer.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <optional>
#include <string_view>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <type_traits>
#include <unistd.h>

namespace ppe::debuginfo {

namespace {

    namespace obj = llvm::object;
    using llvm::DWARFDie;

    std::string message(llvm::Error error) { return llvm::toString(std::move(error)); }

    struct Opened {
        obj::OwningBinary<obj::ObjectFile> binary;
        const obj::ELFObjectFileBase* elf = nullptr;
    };

    Result<Opened> openElf(const std::string& path)
    {
        struct stat st { };
        if (stat(path.c_str(), &st) != 0)
            return Error { path, 0, errno == ENOENT ? "no such file" : std::strerror(errno) };
        if (S_ISDIR(st.st_mode))
            return Error { path, 0, "a directory, not an ELF file" };
        if (st.st_size == 0)
            return Error { path, 0, "empty file, not an ELF file" };
        auto binary = obj::ObjectFile::createObjectFile(path);
        if (!binary) {
            const std::string why = message(binary.takeError());
            if (why.find("not recognized") != std::string::npos)
                return Error { path, 0, "not an ELF file" };
            return Error { path, 0, "damaged ELF file: " + why };
        }
        Opened opened;
        opened.binary = std::move(*binary);
        opened.elf = llvm::dyn_cast<obj::ELFObjectFileBase>(opened.binary.getBinary());
        if (!opened.elf)
            return Error { path, 0, "not an ELF file" };
        return opened;
    }

    std::optional<llvm::StringRef> sectionContents(const obj::ObjectFile& o, llvm::StringRef name)
    {
        for (const obj::SectionRef& s : o.sections()) {
            auto n = s.getName();
            if (!n) {
                llvm::consumeError(n.takeError());
                continue;
            }
            if (*n != name)
                continue;
            auto contents = s.getContents();
            if (!contents) {
                llvm::consumeError(contents.takeError());
                return std::nullopt;
            }
            return *contents;
        }
        return std::nullopt;
    }

    bool hasDwarf(const obj::ObjectFile& o)
    {
        for (const obj::SectionRef& s : o.sections()) {
            auto n = s.getName();
            if (n && *n == ".debug_info" && s.getSize() > 0)
                return true;
            if (!n)
                llvm::consumeError(n.takeError());
        }
        return false;
    }

    std::string hex(llvm::StringRef bytes)
    {
        static const char kDigits[] = "0123456789abcdef";
        std::string out;
        for (unsigned char c : bytes) {
            out += kDigits[c >> 4];
            out += kDigits[c & 15];
        }
        return out;
    }

    // NT_GNU_BUILD_ID from the note sections.
    std::string buildIdOf(const obj::ELFObjectFileBase& elf)
    {
        const auto endian = elf.isLittleEndian() ? llvm::support::little : llvm::support::big;
        for (const obj::SectionRef& s : elf.sections()) {
            if (obj::ELFSectionRef(s).getType() != llvm::ELF::SHT_NOTE)
                continue;
            auto contents = s.getContents();
            if (!contents) {
                llvm::consumeError(contents.takeError());
                continue;
            }
            llvm::StringRef d = *contents;
            while (d.size() >= 12) {
                const uint32_t nameSize = llvm::support::endian::read32(d.data(), endian);
                const uint32_t descSize = llvm::support::endian::read32(d.data() + 4, endian);
                const uint32_t type = llvm::support::endian::read32(d.data() + 8, endian);
                const uint64_t nameEnd = 12 + llvm::alignTo(nameSize, 4);
                const uint64_t descEnd = nameEnd + llvm::alignTo(descSize, 4);
                if (descEnd > d.size() || nameEnd + descSize > d.size())
                    break;
                if (type == llvm::ELF::NT_GNU_BUILD_ID && nameSize == 4
                    && d.substr(12, 4) == llvm::StringRef("GNU\0", 4))
                    return hex(d.substr(nameEnd, descSize));
                d = d.drop_front(descEnd);
            }
        }
        return "";
    }

    template <class ELFT> std::vector<Segment> segmentsOf(const obj::ELFObjectFile<ELFT>& o)
    {
        std::vector<Segment> out;
        auto headers = o.getELFFile().program_headers();
        if (!headers) {
            llvm::consumeError(headers.takeError());
            return out;
        }
        for (const auto& p : *headers) {
            if (p.p_type == llvm::ELF::PT_LOAD)
                out.push_back(
                    Segment { p.p_offset, p.p_vaddr, p.p_filesz, p.p_memsz, (p.p_flags & llvm::ELF::PF_X) != 0 });
        }
        return out;
    }

    std::vector<Segment> segmentsOf(const obj::ELFObjectFileBase& elf)
    {
        if (const auto* o = llvm::dyn_cast<obj::ELF64LEObjectFile>(&elf))
            return segmentsOf(*o);
        if (const auto* o = llvm::dyn_cast<obj::ELF32LEObjectFile>(&elf))
            return segmentsOf(*o);
        if (const auto* o = llvm::dyn_cast<obj::ELF64BEObjectFile>(&elf))
            return segmentsOf(*o);
        if (const auto* o = llvm::dyn_cast<obj::ELF32BEObjectFile>(&elf))
            return segmentsOf(*o);
        return {};
    }

    std::string directoryOf(const std::string& path)
    {
        char resolved[PATH_MAX];
        const std::string real = realpath(path.c_str(), resolved) ? std::string(resolved) : path;
        const size_t slash = real.rfind('/');
        return slash == std::string::npos ? "." : real.substr(0, slash);
    }

    bool fileExists(const std::string& path)
    {
        struct stat st { };
        return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }

    // The split debug file of `elf`, as GDB finds it: by build id under each root, then through
    // .gnu_debuglink (next to the file, in its .debug/, under each root) with the CRC checked.
    std::optional<Opened> findDebugFile(const std::string& path, const obj::ELFObjectFileBase& elf,
        const std::string& buildId, const Options& options, std::string& found)
    {
        auto accept = [&](const std::string& candidate, std::optional<uint32_t> crc) -> std::optional<Opened> {
            if (!fileExists(candidate))
                return std::nullopt;
            auto opened = openElf(candidate);
            if (!opened || !hasDwarf(*opened->elf))
                return std::nullopt;
            const std::string id = buildIdOf(*opened->elf);
            if (!buildId.empty() && !id.empty() && id != buildId)
                return std::nullopt;
            if (crc) {
                auto buffer = llvm::MemoryBuffer::getFile(candidate);
                if (!buffer)
                    return std::nullopt;
                const llvm::StringRef bytes = (*buffer)->getBuffer();
                if (llvm::crc32(llvm::arrayRefFromStringRef(bytes)) != *crc)
                    return std::nullopt;
            }
            found = candidate;
            return std::move(opened.value());
        };
        if (buildId.size() > 2) {
            for (const std::string& root : options.debugRoots) {
                if (auto d = accept(
                        root + "/.build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug", std::nullopt))
                    return d;
            }
        }
        const std::optional<llvm::StringRef> link = sectionContents(elf, ".gnu_debuglink");
        if (!link)
            return std::nullopt;
        const size_t nameEnd = link->find('\0');
        const uint64_t crcAt = llvm::alignTo(nameEnd + 1, 4);
        if (nameEnd == llvm::StringRef::npos || nameEnd == 0 || crcAt + 4 > link->size())
            return std::nullopt;
        const std::string name = link->substr(0, nameEnd).str();
        const uint32_t crc = llvm::support::endian::read32(
            link->data() + crcAt, elf.isLittleEndian() ? llvm::support::little : llvm::support::big);
        const std::string dir = directoryOf(path);
        std::vector<std::string> candidates = { dir + "/" + name, dir + "/.debug/" + name };
        for (const std::string& root : options.debugRoots)
            candidates.push_back(root + dir + "/" + name);
        for (const std::string& c : candidates) {
            if (c == path)
                continue;
            if (auto d = accept(c, crc))
                return d;
        }
        return std::nullopt;
    }

    std::string demangled(const std::string& name)
    {
        if (name.size() > 2 && name[0] == '_' && name[1] == 'Z')
            return llvm::demangle(name);
        return name;
    }

    struct Symbol {
        uint64_t address;
        uint64_t size;
        std::string name;
        int rank; // lower is better: global, weak, local, a section
        uint64_t sectionEnd; // the end of the symbol's section
    };

    // Function symbols of .symtab or .dynsym, through ELFFile's checked accessors (the ObjectFile
    // symbol iterators end the process on a malformed symbol table: found by fuzz/fuzz_elf).
    template <class ELFT> void collectSymbols(const obj::ELFObjectFile<ELFT>& o, bool dynamic, std::vector<Symbol>& out)
    {
        const auto& file = o.getELFFile();
        auto sections = file.sections();
        if (!sections) {
            llvm::consumeError(sections.takeError());
            return;
        }
        const unsigned wanted = dynamic ? llvm::ELF::SHT_DYNSYM : llvm::ELF::SHT_SYMTAB;
        for (const auto& table : *sections) {
            if (table.sh_type != wanted)
                continue;
            auto symbols = file.symbols(&table);
            auto strings = file.getStringTableForSymtab(table, *sections);
            if (!symbols || !strings) {
                if (!symbols)
                    llvm::consumeError(symbols.takeError());
                if (!strings)
                    llvm::consumeError(strings.takeError());
                continue;
            }
            for (const auto& symbol : *symbols) {
                const uint8_t type = symbol.getType();
                if (type != llvm::ELF::STT_FUNC && type != llvm::ELF::STT_GNU_IFUNC)
                    continue;
                const uint16_t index = symbol.st_shndx;
                if (index == llvm::ELF::SHN_UNDEF || index >= sections->size() || symbol.st_value == 0)
                    continue;
                auto name = symbol.getName(*strings);
                if (!name) {
                    llvm::consumeError(name.takeError());
                    continue;
                }
                if (name->empty())
                    continue;
                std::string n = name->str();
                if (const size_t at = n.find('@'); at != std::string::npos)
                    n.resize(at); // versioned names: exp@@GLIBC_2.29
                const uint8_t binding = symbol.getBinding();
                const int rank = binding == llvm::ELF::STB_GLOBAL ? 0 : binding == llvm::ELF::STB_WEAK ? 1 : 2;
                // A size-0 symbol (_init, hand-written assembly) reaches at most to its section's end.
                const auto& section = (*sections)[index];
                out.push_back(Symbol { uint64_t(symbol.st_value), uint64_t(symbol.st_size), std::move(n), rank,
                    uint64_t(section.sh_addr) + uint64_t(section.sh_size) });
            }
        }
    }

    void collectSymbols(const obj::ELFObjectFileBase& elf, bool dynamic, std::vector<Symbol>& out)
    {
        if (const auto* o = llvm::dyn_cast<obj::ELF64LEObjectFile>(&elf))
            collectSymbols(*o, dynamic, out);
        else if (const auto* o = llvm::dyn_cast<obj::ELF32LEObjectFile>(&elf))
            collectSymbols(*o, dynamic, out);
        else if (const auto* o = llvm::dyn_cast<obj::ELF64BEObjectFile>(&elf))
            collectSymbols(*o, dynamic, out);
        else if (const auto* o = llvm::dyn_cast<obj::ELF32BEObjectFile>(&elf))
            collectSymbols(*o, dynamic, out);
    }

    // The PLT sections as functions of their own ("[.plt]"): calls to shared libraries pass there.
    void collectStubSections(const obj::ELFObjectFileBase& elf, std::vector<Symbol>& out)
    {
        for (const obj::SectionRef& s : elf.sections()) {
            auto name = s.getName();
            if (!name) {
                llvm::consumeError(name.takeError());
                continue;
            }
            if ((*name == ".plt" || *name == ".plt.sec" || *name == ".plt.got" || *name == ".iplt") && s.getSize() > 0
                && s.getAddress() != 0)
                out.push_back(
                    Symbol { s.getAddress(), s.getSize(), "[" + name->str() + "]", 3, s.getAddress() + s.getSize() });
        }
    }

    int underscores(const std::string& name)
    {
        int n = 0;
        while (size_t(n) < name.size() && name[n] == '_')
            ++n;
        return n;
    }

    // One symbol per address (aliases: global before weak before local, then the fewest leading
    // underscores, then the shortest name); size-0 symbols reach to the next symbol.
    std::vector<Symbol> uniqueSymbols(std::vector<Symbol> symbols)
    {
        std::sort(symbols.begin(), symbols.end(), [](const Symbol& a, const Symbol& b) {
            if (a.address != b.address)
                return a.address < b.address;
            if (a.rank != b.rank)
                return a.rank < b.rank;
            if (underscores(a.name) != underscores(b.name))
                return underscores(a.name) < underscores(b.name);
            if (a.name.size() != b.name.size())
                return a.name.size() < b.name.size();
            return a.name < b.name;
        });
        std::vector<Symbol> out;
        for (Symbol& s : symbols) {
            if (!out.empty() && out.back().address == s.address) {
                out.back().size = std::max(out.back().size, s.size);
                continue;
            }
            out.push_back(std::move(s));
        }
        for (size_t i = 0; i < out.size(); ++i) {
            const uint64_t end = std::min(i + 1 < out.size() ? out[i + 1].address : UINT64_MAX, out[i].sectionEnd);
            if (out[i].size == 0 && end != UINT64_MAX && end > out[i].address)
                out[i].size = end - out[i].address;
        }
        return out;
    }

    void sortAndMerge(std::vector<AddressRange>& ranges)
    {
        std::sort(ranges.begin(), ranges.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
        std::vector<AddressRange> merged;
        for (const AddressRange& r : ranges) {
            if (r.end <= r.start)
                continue;
            if (!merged.empty() && r.start <= merged.back().end)
                merged.back().end = std::max(merged.back().end, r.end);
            else
                merged.push_back(r);
        }
        ranges = std::move(merged);
    }

    // Sorted, merged intervals with a lookup.
    struct IntervalSet {
        std::vector<AddressRange> ranges;
        void finish() { sortAndMerge(ranges); }
        bool contains(uint64_t address) const
        {
            auto it = std::upper_bound(
                ranges.begin(), ranges.end(), address, [](uint64_t a, const AddressRange& r) { return a < r.start; });
            return it != ranges.begin() && address < std::prev(it)->end;
        }
    };

    // Whether LLVM 14 can parse the line table header at `offset` without crashing: its DWARF 5
    // directory and file entry formats may only use forms LLVM's extractValue handles there
    // (llvm-dwarfdump-14 --debug-line itself crashes on a header with form 0; found by fuzz/fuzz_elf).
    bool lineTableHeaderIsSafe(llvm::StringRef section, uint64_t offset, bool littleEndian)
    {
        llvm::DataExtractor data(section, littleEndian, 8);
        llvm::DataExtractor::Cursor c(offset);
        uint64_t length = data.getU32(c);
        unsigned offsetSize = 4;
        if (length == 0xffffffff) {
            length = data.getU64(c);
            offsetSize = 8;
        }
        const uint16_t version = data.getU16(c);
        if (!c || version < 2 || version > 5) {
            llvm::consumeError(c.takeError());
            return false;
        }
        if (version < 5)
            return true; // no entry formats before DWARF 5
        data.getU8(c); // address_size
        data.getU8(c); // segment_selector_size
        const uint64_t headerLength = offsetSize == 8 ? data.getU64(c) : data.getU32(c);
        (void)headerLength;
        data.getU8(c); // minimum_instruction_length
        data.getU8(c); // maximum_operations_per_instruction
        data.getU8(c); // default_is_stmt
        data.getU8(c); // line_base
        data.getU8(c); // line_range
        const uint8_t opcodeBase = data.getU8(c);
        data.skip(c, opcodeBase ? opcodeBase - 1 : 0);
        auto formsAreSafe = [&](std::vector<uint64_t>& forms) {
            const uint8_t count = data.getU8(c);
            for (unsigned i = 0; i < count && c; ++i) {
                data.getULEB128(c); // content type
                const uint64_t form = data.getULEB128(c);
                switch (form) {
                case llvm::dwarf::DW_FORM_string:
                case llvm::dwarf::DW_FORM_line_strp:
                case llvm::dwarf::DW_FORM_strp:
                case llvm::dwarf::DW_FORM_strx:
                case llvm::dwarf::DW_FORM_strx1:
                case llvm::dwarf::DW_FORM_strx2:
                case llvm::dwarf::DW_FORM_strx3:
                case llvm::dwarf::DW_FORM_strx4:
                case llvm::dwarf::DW_FORM_udata:
                case llvm::dwarf::DW_FORM_data1:
                case llvm::dwarf::DW_FORM_data2:
                case llvm::dwarf::DW_FORM_data4:
                case llvm::dwarf::DW_FORM_data8:
                case llvm::dwarf::DW_FORM_data16:
                case llvm::dwarf::DW_FORM_block:
                    forms.push_back(form);
                    break;
                default:
                    return false;
                }
            }
            return bool(c);
        };
        // Skips one entry of `forms`; false when the data is not there.
        auto skipEntry = [&](const std::vector<uint64_t>& forms) {
            for (uint64_t form : forms) {
                switch (form) {
                case llvm::dwarf::DW_FORM_string:
                    data.getCStrRef(c);
                    break;
                case llvm::dwarf::DW_FORM_line_strp:
                case llvm::dwarf::DW_FORM_strp:
                    data.skip(c, offsetSize);
                    break;
                case llvm::dwarf::DW_FORM_strx:
                case llvm::dwarf::DW_FORM_udata:
                    data.getULEB128(c);
                    break;
                case llvm::dwarf::DW_FORM_strx1:
                case llvm::dwarf::DW_FORM_data1:
                    data.skip(c, 1);
                    break;
                case llvm::dwarf::DW_FORM_strx2:
                case llvm::dwarf::DW_FORM_data2:
                    data.skip(c, 2);
                    break;
                case llvm::dwarf::DW_FORM_strx3:
                    data.skip(c, 3);
                    break;
                case llvm::dwarf::DW_FORM_strx4:
                case llvm::dwarf::DW_FORM_data4:
                    data.skip(c, 4);
                    break;
                case llvm::dwarf::DW_FORM_data8:
                    data.skip(c, 8);
                    break;
                case llvm::dwarf::DW_FORM_data16:
                    data.skip(c, 16);
                    break;
                case llvm::dwarf::DW_FORM_block:
                    data.skip(c, data.getULEB128(c));
                    break;
                }
            }
            return bool(c);
        };
        std::vector<uint64_t> directoryForms, fileForms;
        bool safe = formsAreSafe(directoryForms);
        if (safe) {
            const uint64_t directories = data.getULEB128(c);
            for (uint64_t i = 0; i < directories && safe; ++i)
                safe = skipEntry(directoryForms);
        }
        safe = safe && formsAreSafe(fileForms);
        llvm::consumeError(c.takeError());
        return safe;
    }

    class Reader {
    public:
        Reader(DebugInfo& info, const Options& options, const std::vector<Symbol>& symbols)
            : m_info(info)
            , m_options(options)
        {
            for (const Symbol& s : symbols)
                m_symbolAt.emplace(s.address, &s);
        }

        void read(const obj::ObjectFile& dwarf)
        {
            m_debugLine = sectionContents(dwarf, ".debug_line").value_or(llvm::StringRef());
            m_littleEndian = dwarf.isLittleEndian();
            auto ctx = llvm::DWARFContext::create(
                dwarf, llvm::DWARFContext::ProcessDebugRelocations::Ignore, nullptr, "",
                [this](llvm::Error e) { warn(message(std::move(e))); },
                [this](llvm::Error e) { warn(message(std::move(e))); });
            std::vector<llvm::DWARFUnit*> units;
            for (const auto& unit : ctx->compile_units())
                units.push_back(unit.get());
            for (llvm::DWARFUnit* unit : units)
                readUnit(*ctx, *unit);
        }

    private:
        void warn(const std::string& text)
        {
            if (m_info.warnings.size() < 20)
                m_info.warnings.push_back(m_info.debugPath + ": " + text);
        }

        // Code that is really in the program: inside an executable segment (discarded functions
        // keep address 0 or a tombstone in DWARF).
        bool loaded(uint64_t address) const
        {
            if (m_info.segments.empty())
                return true;
            for (const Segment& s : m_info.segments) {
                if (s.executable && address >= s.address && address < s.address + s.memSize)
                    return true;
            }
            return false;
        }

        // The die's code, sorted; `entry`, if given, gets the address the code is entered at
        // (DW_AT_low_pc, or the first of DW_AT_ranges: a .cold part may lie below it).
        std::vector<AddressRange> rangesOf(const DWARFDie& die, uint64_t* entry = nullptr)
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

        void readUnit(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit)
        {
            const DWARFDie die = unit.getUnitDIE(false);
            if (!die)
                return;
            CompileUnit cu;
            cu.name = llvm::dwarf::toString(die.find(llvm::dwarf::DW_AT_name), "");
            const char* dir = unit.getCompilationDir();
            cu.compDir = dir ? dir : "";
            cu.producer = llvm::dwarf::toString(die.find(llvm::dwarf::DW_AT_producer), "");
            cu.ranges = rangesOf(die);
            const int index = int(m_info.units.size());
            m_info.units.push_back(std::move(cu));
            visit(die, index, -1);
            if (m_options.lines)
                readLines(ctx, unit, index);
        }

        void addFunction(const DWARFDie& die, int unit, std::vector<AddressRange> ranges, uint64_t entry)
        {
            Function f;
            const char* linkage = die.getName(llvm::DINameKind::LinkageName);
            const char* shortName = die.getShortName();
            std::string symbol;
            if (auto it = m_symbolAt.find(entry); it != m_symbolAt.end())
                symbol = it->second->name;
            const std::string mangled
                = linkage && (!shortName || std::strcmp(linkage, shortName) != 0) ? linkage : symbol;
            f.name = !mangled.empty() ? demangled(mangled) : shortName ? shortName : "";
            if (f.name.empty())
                f.name = "(unnamed function)";
            f.linkageName = mangled != f.name ? mangled : "";
            f.ranges = std::move(ranges);
            f.unit = unit;
            f.line = int(die.getDeclLine());
            m_info.functions.push_back(std::move(f));
        }

        // Subprograms with code, and the inlined code in them, wherever they nest.
        void visit(const DWARFDie& parent, int unit, int outer)
        {
            for (DWARFDie child = parent.getFirstChild(); child && !child.isNULL(); child = child.getSibling()) {
                switch (child.getTag()) {
                case llvm::dwarf::DW_TAG_subprogram: {
                    uint64_t entry = 0;
                    std::vector<AddressRange> ranges = rangesOf(child, &entry);
                    if (ranges.empty())
                        break; // a declaration, or discarded code
                    if (outer < 0)
                        addFunction(child, unit, ranges, entry);
                    visit(child, unit, outer < 0 ? int(m_info.functions.size()) - 1 : outer);
                    break;
                }
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

        void readLines(llvm::DWARFContext& ctx, llvm::DWARFUnit& unit, int index)
        {
            const auto stmtList
                = llvm::dwarf::toSectionOffset(unit.getUnitDIE(false).find(llvm::dwarf::DW_AT_stmt_list));
            if (!stmtList)
                return;
            if (!lineTableHeaderIsSafe(m_debugLine, *stmtList, m_littleEndian)) {
                warn("line table at offset " + std::to_string(*stmtList) + ": damaged header, not read");
                return;
            }
            auto parsed = ctx.getLineTableForUnit(&unit, [this](llvm::Error e) { warn(message(std::move(e))); });
            if (!parsed) {
                warn(message(parsed.takeError()));
                return;
            }
            const llvm::DWARFDebugLine::LineTable* table = *parsed;
            if (!table)
                return;
            const std::string& compDir = m_info.units[index].compDir;
            std::map<uint64_t, int> files;
            auto fileIndex = [&](uint64_t file) {
                auto [it, added] = files.try_emplace(file, 0);
                if (added) {
                    std::string name;
                    if (!table->getFileNameByIndex(
                            file, compDir, llvm::DILineInfoSpecifier::FileLineInfoKind::AbsoluteFilePath, name))
                        name = "?";
                    auto [global, fresh] = m_fileIds.try_emplace(name, int(m_info.files.size()));
                    if (fresh)
                        m_info.files.push_back(name);
                    it->second = global->second;
                }
                return it->second;
            };
            for (const auto& sequence : table->Sequences) {
                if (!sequence.isValid() || !loaded(sequence.LowPC))
                    continue;
                for (unsigned i = sequence.FirstRowIndex; i + 1 < sequence.LastRowIndex; ++i) {
                    const auto& row = table->Rows[i];
                    const auto& next = table->Rows[i + 1];
                    if (row.EndSequence || next.Address.Address <= row.Address.Address)
                        continue;
                    m_info.lines.push_back(
                        LineRange { row.Address.Address, next.Address.Address, fileIndex(row.File), int(row.Line) });
                }
            }
        }

    public:
        IntervalSet m_inlined;

    private:
        DebugInfo& m_info;
        const Options& m_options;
        std::map<uint64_t, const Symbol*> m_symbolAt;
        std::map<std::string, int> m_fileIds;
        llvm::StringRef m_debugLine;
        bool m_littleEndian = true;
    };

    // Units sorted by address, functions too (DWARF and symbols), lines sorted and annotated.
    void finish(DebugInfo& info, IntervalSet& inlined, const std::vector<Symbol>& symbols)
    {
        auto lowest = [](const std::vector<AddressRange>& r) { return r.empty() ? UINT64_MAX : r.front().start; };
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

        // Symbols where no DWARF function is: crt code, libraries without debug info.
        IntervalSet described;
        for (const Function& f : info.functions)
            described.ranges.insert(described.ranges.end(), f.ranges.begin(), f.ranges.end());
        described.finish();
        for (const Symbol& s : symbols) {
            if (s.size == 0 || described.contains(s.address))
                continue;
            Function f;
            f.name = demangled(s.name);
            f.linkageName = f.name != s.name ? s.name : "";
            f.ranges = { AddressRange { s.address, s.address + s.size } };
            f.fromSymbols = true;
            info.functions.push_back(std::move(f));
        }
        std::stable_sort(info.functions.begin(), info.functions.end(),
            [&](const Function& a, const Function& b) { return lowest(a.ranges) < lowest(b.ranges); });

        std::sort(info.lines.begin(), info.lines.end(),
            [](const LineRange& a, const LineRange& b) { return a.start < b.start; });
        for (size_t i = 0; i + 1 < info.lines.size(); ++i)
            info.lines[i].end = std::min(info.lines[i].end, info.lines[i + 1].start);
        info.lines.erase(
            std::remove_if(info.lines.begin(), info.lines.end(), [](const LineRange& l) { return l.end <= l.start; }),
            info.lines.end());

        // Each line range's outermost function, and whether it is inlined code.
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

namespace {

    Result<DebugInfo> loadInProcess(const std::string& path, const Options& options, bool readDwarf)
    {
        auto opened = openElf(path);
        if (!opened)
            return opened.error();
        const obj::ELFObjectFileBase& elf = *opened->elf;
        DebugInfo info;
        info.path = path;
        info.buildId = buildIdOf(elf);
        info.segments = segmentsOf(elf);

        std::optional<Opened> split;
        const obj::ObjectFile* dwarf = nullptr;
        if (!readDwarf) {
        } else if (hasDwarf(elf)) {
            dwarf = &elf;
            info.debugPath = path;
        } else if ((split = findDebugFile(path, elf, info.buildId, options, info.debugPath))) {
            dwarf = split->elf;
        }

        // Symbols: the file's own .symtab, else the debug file's; and .dynsym.
        std::vector<Symbol> symbols;
        collectSymbols(elf, false, symbols);
        if (symbols.empty() && split)
            collectSymbols(*split->elf, false, symbols);
        collectSymbols(elf, true, symbols);
        collectStubSections(elf, symbols);
        symbols = uniqueSymbols(std::move(symbols));

        Reader reader(info, options, symbols);
        if (dwarf)
            reader.read(*dwarf);
        finish(info, reader.m_inlined, symbols);
        return info;
    }

    // DebugInfo through a pipe: sizes and PODs as bytes, in the order the fields are declared.
    class Writer {
    public:
        template <class T> void pod(const T& v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); }
        void str(const std::string& s)
        {
            pod(uint64_t(s.size()));
            bytes += s;
        }
        template <class T, class F> void list(const std::vector<T>& items, F each)
        {
            pod(uint64_t(items.size()));
            for (const T& item : items)
                each(item);
        }
        template <class T> void pods(const std::vector<T>& items)
        {
            static_assert(std::is_trivially_copyable_v<T>);
            pod(uint64_t(items.size()));
            bytes.append(reinterpret_cast<const char*>(items.data()), items.size() * sizeof(T));
        }
        std::string bytes;
    };

    class Parser {
    public:
        explicit Parser(std::string_view bytes)
            : m_bytes(bytes)
        {
        }
        template <class T> bool pod(T& v)
        {
            if (m_bytes.size() - m_at < sizeof v)
                return false;
            std::memcpy(&v, m_bytes.data() + m_at, sizeof v);
            m_at += sizeof v;
            return true;
        }
        bool str(std::string& s)
        {
            uint64_t n = 0;
            if (!pod(n) || m_bytes.size() - m_at < n)
                return false;
            s.assign(m_bytes.substr(m_at, n));
            m_at += n;
            return true;
        }
        template <class T, class F> bool list(std::vector<T>& items, F each)
        {
            uint64_t n = 0;
            if (!pod(n) || n > m_bytes.size())
                return false;
            items.resize(n);
            for (T& item : items) {
                if (!each(item))
                    return false;
            }
            return true;
        }
        template <class T> bool pods(std::vector<T>& items)
        {
            uint64_t n = 0;
            if (!pod(n) || n > (m_bytes.size() - m_at) / sizeof(T))
                return false;
            items.resize(n);
            std::memcpy(items.data(), m_bytes.data() + m_at, n * sizeof(T));
            m_at += n * sizeof(T);
            return true;
        }
        bool done() const { return m_at == m_bytes.size(); }

    private:
        std::string_view m_bytes;
        size_t m_at = 0;
    };

    std::string serialize(const Result<DebugInfo>& result)
    {
        Writer w;
        w.pod(uint8_t(result.ok()));
        if (!result.ok()) {
            w.str(result.error().file);
            w.pod(uint64_t(result.error().line));
            w.str(result.error().message);
            return std::move(w.bytes);
        }
        const DebugInfo& d = result.value();
        w.bytes.reserve(4096 + d.lines.size() * sizeof(LineRange) + d.functions.size() * 128 + d.files.size() * 96
            + d.units.size() * 256);
        w.str(d.path);
        w.str(d.debugPath);
        w.str(d.buildId);
        w.pods(d.segments);
        w.list(d.units, [&](const CompileUnit& u) {
            w.str(u.name);
            w.str(u.compDir);
            w.str(u.producer);
            w.pods(u.ranges);
        });
        w.list(d.functions, [&](const Function& f) {
            w.str(f.name);
            w.str(f.linkageName);
            w.pods(f.ranges);
            w.pod(f.unit);
            w.pod(f.line);
            w.pod(f.fromSymbols);
        });
        w.list(d.files, [&](const std::string& f) { w.str(f); });
        w.pods(d.lines);
        w.list(d.warnings, [&](const std::string& s) { w.str(s); });
        return std::move(w.bytes);
    }

    std::optional<Result<DebugInfo>> deserialize(std::string_view bytes)
    {
        Parser p(bytes);
        uint8_t ok = 0;
        if (!p.pod(ok))
            return std::nullopt;
        if (!ok) {
            Error e;
            uint64_t line = 0;
            if (!p.str(e.file) || !p.pod(line) || !p.str(e.message) || !p.done())
                return std::nullopt;
            e.line = line;
            return Result<DebugInfo>(e);
        }
        DebugInfo d;
        const bool read = p.str(d.path) && p.str(d.debugPath) && p.str(d.buildId) && p.pods(d.segments)
            && p.list(d.units,
                [&](CompileUnit& u) {
                    return p.str(u.name) && p.str(u.compDir) && p.str(u.producer) && p.pods(u.ranges);
                })
            && p.list(d.functions,
                [&](Function& f) {
                    return p.str(f.name) && p.str(f.linkageName) && p.pods(f.ranges) && p.pod(f.unit) && p.pod(f.line)
                        && p.pod(f.fromSymbols);
                })
            && p.list(d.files, [&](std::string& f) { return p.str(f); }) && p.pods(d.lines)
            && p.list(d.warnings, [&](std::string& s) { return p.str(s); }) && p.done();
        if (!read)
            return std::nullopt;
        return Result<DebugInfo>(std::move(d));
    }

    bool writeAll(int fd, const std::string& bytes)
    {
        for (size_t done = 0; done < bytes.size();) {
            const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += size_t(n);
        }
        return true;
    }

    std::string readAll(int fd)
    {
        std::string bytes;
        char buffer[1 << 16];
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return bytes;
            bytes.append(buffer, size_t(n));
        }
    }

} // namespace

Result<DebugInfo> loadDebugInfo(const std::string& path, const Options& options)
{
    if (!options.isolate)
        return loadInProcess(path, options, true);
    // LLVM 14's DWARF reader crashes on some damaged input (llvm-dwarfdump-14 does too: see
    // test/data/debuginfo/README.md), so a grandchild process reads it. It writes the result into
    // a memory file and then one byte into a pipe; a crash closes the pipe without that byte.
    // Nobody waits for the grandchild to free its memory: init reaps it.
    const int memory = memfd_create("ppe-debuginfo", MFD_CLOEXEC);
    int fds[2];
    if (memory < 0 || pipe2(fds, O_CLOEXEC) != 0) {
        if (memory >= 0)
            close(memory);
        return loadInProcess(path, options, true);
    }
    const pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        const pid_t reader = fork();
        if (reader != 0)
            _exit(reader < 0 ? 1 : 0);
        const bool written = writeAll(memory, serialize(loadInProcess(path, options, true)));
        if (written)
            writeAll(fds[1], "!");
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    int status = 0;
    while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) { }
    const bool finished = child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && readAll(fds[0]) == "!";
    close(fds[0]);
    struct stat st { };
    if (finished && fstat(memory, &st) == 0 && st.st_size > 0) {
        void* bytes = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, memory, 0);
        close(memory);
        if (bytes != MAP_FAILED) {
            std::optional<Result<DebugInfo>> result
                = deserialize(std::string_view(static_cast<const char*>(bytes), size_t(st.st_size)));
            munmap(bytes, size_t(st.st_size));
            if (result)
                return std::move(*result);
        }
    } else {
        close(memory);
    }
    Result<DebugInfo> symbols = loadInProcess(path, options, false);
    if (symbols.ok())
        symbols->warnings.push_back(path + ": reading its DWARF failed (damaged debug information?): symbols only");
    return symbols;
}

} // namespace ppe::debuginfo
