#include "elf_symbols.h"

#include <gtest/gtest.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>

namespace ppe::testing {

std::vector<FunctionSymbol> functionSymbols(const std::string& path)
{
    std::vector<FunctionSymbol> out;
    auto binary = llvm::object::ObjectFile::createObjectFile(path);
    if (!binary) {
        ADD_FAILURE() << path << ": " << llvm::toString(binary.takeError());
        return out;
    }
    const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(binary->getBinary());
    if (!elf) {
        ADD_FAILURE() << path << ": not ELF";
        return out;
    }
    for (const llvm::object::ELFSymbolRef& symbol : elf->symbols()) {
        auto type = symbol.getType();
        auto name = symbol.getName();
        auto address = symbol.getAddress();
        if (!type || !name || !address) {
            llvm::consumeError(type.takeError());
            llvm::consumeError(name.takeError());
            llvm::consumeError(address.takeError());
            continue;
        }
        if (*type == llvm::object::SymbolRef::ST_Function && symbol.getSize() > 0)
            out.push_back(FunctionSymbol { name->str(), *address, symbol.getSize() });
    }
    return out;
}

std::string buildIdOf(const std::string& path)
{
    auto binary = llvm::object::ObjectFile::createObjectFile(path);
    if (!binary) {
        ADD_FAILURE() << path << ": " << llvm::toString(binary.takeError());
        return "";
    }
    for (const llvm::object::SectionRef& section : binary->getBinary()->sections()) {
        auto name = section.getName();
        auto contents = section.getContents();
        if (!name || !contents || *name != ".note.gnu.build-id") {
            llvm::consumeError(name.takeError());
            llvm::consumeError(contents.takeError());
            continue;
        }
        // Elf_Nhdr (12 bytes) + "GNU\0" + descriptor.
        std::string hex;
        for (unsigned char c : contents->drop_front(16))
            hex += "0123456789abcdef"[c >> 4], hex += "0123456789abcdef"[c & 15];
        return hex;
    }
    return "";
}

FunctionSymbol findFunction(const std::vector<FunctionSymbol>& symbols, const std::string& name)
{
    for (const FunctionSymbol& s : symbols) {
        if (s.name == name)
            return s;
    }
    ADD_FAILURE() << "no function symbol '" << name << "'";
    return FunctionSymbol { "", 0, 0 };
}

} // namespace ppe::testing
