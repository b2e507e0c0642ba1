#include "symbols.h"

#include <algorithm>
#include <climits>

namespace ppe::debuginfo {

namespace {

    template <class ELFT, class Sym, class Shdr>
    std::optional<Symbol> functionSymbol(const Sym& symbol, llvm::StringRef strings, llvm::ArrayRef<Shdr> sections)
    {
        const uint8_t type = symbol.getType();
        if (type != llvm::ELF::STT_FUNC && type != llvm::ELF::STT_GNU_IFUNC)
            return std::nullopt;
        const uint16_t index = symbol.st_shndx;
        if (index == llvm::ELF::SHN_UNDEF || index >= sections.size() || symbol.st_value == 0)
            return std::nullopt;
        auto name = symbol.getName(strings);
        if (!name) {
            llvm::consumeError(name.takeError());
            return std::nullopt;
        }
        if (name->empty())
            return std::nullopt;
        std::string n = name->str();
        if (const size_t at = n.find('@'); at != std::string::npos)
            n.resize(at); // versioned names: exp@@GLIBC_2.29
        const uint8_t binding = symbol.getBinding();
        const int rank = binding == llvm::ELF::STB_GLOBAL ? 0 : binding == llvm::ELF::STB_WEAK ? 1 : 2;
        // A size-0 symbol (_init, hand-written assembly) reaches at most to its section's end.
        const auto& section = sections[index];
        return Symbol { uint64_t(symbol.st_value), uint64_t(symbol.st_size), std::move(n), rank,
            uint64_t(section.sh_addr) + uint64_t(section.sh_size) };
    }

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
                llvm::consumeError(symbols.takeError());
                llvm::consumeError(strings.takeError());
                continue;
            }
            for (const auto& symbol : *symbols) {
                if (auto s = functionSymbol<ELFT>(symbol, *strings, *sections))
                    out.push_back(std::move(*s));
            }
        }
    }

    void collectSymbols(const obj::ELFObjectFileBase& elf, bool dynamic, std::vector<Symbol>& out)
    {
        withElfType(elf, [&](const auto& o) { collectSymbols(o, dynamic, out); });
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

    bool preferred(const Symbol& a, const Symbol& b)
    {
        if (a.address != b.address)
            return a.address < b.address;
        if (a.rank != b.rank)
            return a.rank < b.rank;
        if (underscores(a.name) != underscores(b.name))
            return underscores(a.name) < underscores(b.name);
        if (a.name.size() != b.name.size())
            return a.name.size() < b.name.size();
        return a.name < b.name;
    }

    std::vector<Symbol> uniqueSymbols(std::vector<Symbol> symbols)
    {
        std::sort(symbols.begin(), symbols.end(), preferred);
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

} // namespace

std::vector<Symbol> readSymbols(const obj::ELFObjectFileBase& elf, const obj::ELFObjectFileBase* debugFile)
{
    std::vector<Symbol> symbols;
    collectSymbols(elf, false, symbols);
    if (symbols.empty() && debugFile)
        collectSymbols(*debugFile, false, symbols);
    collectSymbols(elf, true, symbols);
    collectStubSections(elf, symbols);
    return uniqueSymbols(std::move(symbols));
}

} // namespace ppe::debuginfo
