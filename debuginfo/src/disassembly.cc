#include "ppe/debuginfo/disassembly.h"

#include "elf_file.h"

#include <llvm/ADT/StringExtras.h>
#include <llvm/MC/MCAsmInfo.h>
#include <llvm/MC/MCContext.h>
#include <llvm/MC/MCDisassembler/MCDisassembler.h>
#include <llvm/MC/MCInst.h>
#include <llvm/MC/MCInstPrinter.h>
#include <llvm/MC/MCInstrAnalysis.h>
#include <llvm/MC/MCInstrInfo.h>
#include <llvm/MC/MCRegisterInfo.h>
#include <llvm/MC/MCSubtargetInfo.h>
#include <llvm/MC/MCTargetOptions.h>
#include <llvm/MC/SubtargetFeature.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <memory>
#include <mutex>

namespace ppe::debuginfo {

namespace {

    // Only the targets this library links (CMakeLists.txt): InitializeAll* would need every one.
    void initializeTargets()
    {
        static std::once_flag once;
        std::call_once(once, [] {
            LLVMInitializeX86TargetInfo();
            LLVMInitializeX86TargetMC();
            LLVMInitializeX86Disassembler();
            LLVMInitializeAArch64TargetInfo();
            LLVMInitializeAArch64TargetMC();
            LLVMInitializeAArch64Disassembler();
        });
    }

    // LLVM's objects for one target, made as llvm-objdump makes them.
    struct Decoder {
        std::unique_ptr<llvm::MCRegisterInfo> registers;
        std::unique_ptr<llvm::MCAsmInfo> asmInfo;
        std::unique_ptr<llvm::MCSubtargetInfo> subtarget;
        std::unique_ptr<llvm::MCInstrInfo> instructions;
        std::unique_ptr<llvm::MCContext> context;
        std::unique_ptr<llvm::MCDisassembler> disassembler;
        std::unique_ptr<llvm::MCInstPrinter> printer;
        std::unique_ptr<llvm::MCInstrAnalysis> analysis; // branch targets; may be null
    };

    // A function symbol, to name the targets of calls and jumps.
    struct Symbol {
        uint64_t address;
        uint64_t size;
        std::string name;
    };

    // Whether every symbol table of `elf` can be walked: the ObjectFile symbol iterator trusts
    // sh_entsize, and on a damaged one ran for minutes (fuzz/fuzz_elf, bad-symtab-entsize.elf).
    bool symbolTablesSound(const obj::ELFObjectFileBase& elf)
    {
        bool sound = true;
        withElfType(elf, [&](const auto& o) {
            const auto& file = o.getELFFile();
            auto sections = file.sections();
            if (!sections) {
                llvm::consumeError(sections.takeError());
                sound = false;
                return;
            }
            for (const auto& table : *sections) {
                if (table.sh_type != llvm::ELF::SHT_SYMTAB && table.sh_type != llvm::ELF::SHT_DYNSYM)
                    continue;
                auto symbols = file.symbols(&table);
                if (!symbols) {
                    llvm::consumeError(symbols.takeError());
                    sound = false;
                }
            }
        });
        return sound;
    }

    // The file's function symbols by address (its static table, else its dynamic one); none when a
    // table is damaged (the code is decoded all the same, without names for its branch targets).
    std::vector<Symbol> functionSymbols(const obj::ObjectFile& object)
    {
        std::vector<Symbol> out;
        const auto* elf = llvm::dyn_cast<obj::ELFObjectFileBase>(&object);
        if (!elf || !symbolTablesSound(*elf))
            return out;
        for (const obj::ELFSymbolRef s : elf->symbols()) {
            llvm::Expected<obj::SymbolRef::Type> type = s.getType();
            llvm::Expected<uint64_t> address = s.getAddress();
            llvm::Expected<llvm::StringRef> name = s.getName();
            if (type && address && name && *type == obj::SymbolRef::ST_Function && !name->empty())
                out.push_back(Symbol { *address, s.getSize(), name->str() });
            llvm::consumeError(type.takeError());
            llvm::consumeError(address.takeError());
            llvm::consumeError(name.takeError());
        }
        std::sort(out.begin(), out.end(), [](const Symbol& a, const Symbol& b) { return a.address < b.address; });
        return out;
    }

    // " <foo>" or " <foo+0x1a>" for a branch target inside function foo, as objdump and perf
    // annotate show it; "" when no symbol holds it.
    std::string targetName(const std::vector<Symbol>& symbols, uint64_t target)
    {
        auto it = std::upper_bound(symbols.begin(), symbols.end(), target,
            [](uint64_t address, const Symbol& s) { return address < s.address; });
        if (it == symbols.begin())
            return "";
        --it;
        const uint64_t offset = target - it->address;
        if (offset && it->size && offset >= it->size) // a symbol without a size (crt's) holds up to the next
            return "";
        return " <" + it->name + (offset ? "+0x" + llvm::utohexstr(offset, true) : "") + ">";
    }

    Result<Decoder> decoderFor(const obj::ObjectFile& object, const std::string& path)
    {
        initializeTargets();
        const llvm::Triple triple = object.makeTriple();
        const std::string name = triple.getArchName().str();
        std::string error;
        const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple.getTriple(), error);
        const Error noTarget { path, 0, "machine " + name + ": no disassembler for it here (x86-64 and AArch64 are)" };
        if (!target)
            return noTarget;
        Decoder d;
        d.registers.reset(target->createMCRegInfo(triple.getTriple()));
        const llvm::MCTargetOptions options;
        if (d.registers)
            d.asmInfo.reset(target->createMCAsmInfo(*d.registers, triple.getTriple(), options));
        const std::string features = object.getFeatures().getString();
        d.subtarget.reset(target->createMCSubtargetInfo(triple.getTriple(), "", features));
        d.instructions.reset(target->createMCInstrInfo());
        if (!d.asmInfo || !d.subtarget || !d.instructions)
            return noTarget;
        d.context = std::make_unique<llvm::MCContext>(triple, d.asmInfo.get(), d.registers.get(), d.subtarget.get());
        d.disassembler.reset(target->createMCDisassembler(*d.subtarget, *d.context));
        d.printer.reset(target->createMCInstPrinter(
            triple, d.asmInfo->getAssemblerDialect(), *d.asmInfo, *d.instructions, *d.registers));
        if (!d.disassembler || !d.printer)
            return noTarget;
        d.analysis.reset(target->createMCInstrAnalysis(d.instructions.get()));
        d.printer->setPrintImmHex(true);
        d.printer->setPrintBranchImmAsAddress(true); // "jne 0x1190", not "jne -24"
        return d;
    }

    // The printer's "\timul\t%esi, %eax" as "imul %esi, %eax".
    std::string tidy(const std::string& text)
    {
        std::string out;
        for (char c : text) {
            const bool blank = c == '\t' || c == ' ';
            if (blank && (out.empty() || out.back() == ' '))
                continue;
            out += blank ? ' ' : c;
        }
        while (!out.empty() && out.back() == ' ')
            out.pop_back();
        return out;
    }

    struct CodeSection {
        uint64_t address;
        llvm::StringRef bytes;
    };

    std::vector<CodeSection> codeSections(const obj::ObjectFile& object)
    {
        std::vector<CodeSection> out;
        for (const obj::SectionRef& s : object.sections()) {
            if (!s.isText() || s.isVirtual())
                continue;
            llvm::Expected<llvm::StringRef> bytes = s.getContents();
            if (!bytes) {
                llvm::consumeError(bytes.takeError());
                continue;
            }
            out.push_back(CodeSection { s.getAddress(), *bytes });
        }
        return out;
    }

    // The name of a call's or jump's target, "" for other instructions.
    std::string branchTarget(
        const Decoder& d, const std::vector<Symbol>& symbols, const llvm::MCInst& inst, uint64_t address, uint64_t size)
    {
        uint64_t target = 0;
        const llvm::MCInstrDesc& desc = d.instructions->get(inst.getOpcode());
        if (!d.analysis || !(desc.isCall() || desc.isBranch())
            || !d.analysis->evaluateBranch(inst, address, size, target))
            return "";
        return targetName(symbols, target);
    }

    // Decodes [start, end) of one section.
    void decode(const Decoder& d, const std::vector<Symbol>& symbols, const CodeSection& section, uint64_t start,
        uint64_t end, std::vector<Instruction>& out)
    {
        const llvm::ArrayRef<uint8_t> bytes(
            reinterpret_cast<const uint8_t*>(section.bytes.data()), section.bytes.size());
        for (uint64_t address = start; address < end;) {
            const uint64_t offset = address - section.address;
            llvm::MCInst inst;
            uint64_t size = 0;
            const auto status = d.disassembler->getInstruction(inst, size,
                bytes.slice(offset, std::min(end, section.address + bytes.size()) - address), address, llvm::nulls());
            if (status != llvm::MCDisassembler::Success || size == 0) {
                out.push_back(Instruction { address, 1, "(bad)" });
                ++address;
                continue;
            }
            std::string text;
            llvm::raw_string_ostream os(text);
            // As llvm-objdump: x86's PC-relative operands count from the next instruction.
            const uint64_t pc = address + (d.subtarget->getTargetTriple().isX86() ? size : 0);
            d.printer->printInst(&inst, pc, "", *d.subtarget, os);
            os.flush();
            out.push_back(Instruction { address, size, tidy(text) + branchTarget(d, symbols, inst, address, size) });
            address += size;
        }
    }

} // namespace

Result<std::vector<Instruction>> disassemble(const std::string& path, const std::vector<AddressRange>& ranges)
{
    auto elf = openElf(path);
    if (!elf)
        return elf.error();
    const obj::ObjectFile& object = *elf->binary.getBinary();
    auto decoder = decoderFor(object, path);
    if (!decoder)
        return decoder.error();
    const std::vector<CodeSection> sections = codeSections(object);
    const std::vector<Symbol> symbols = functionSymbols(object);
    std::vector<Instruction> out;
    for (const AddressRange& r : ranges) {
        for (const CodeSection& s : sections) {
            const uint64_t lo = std::max(r.start, s.address);
            const uint64_t hi = std::min(r.end, s.address + s.bytes.size());
            if (lo < hi)
                decode(*decoder, symbols, s, lo, hi, out);
        }
    }
    std::sort(out.begin(), out.end(), [](const Instruction& a, const Instruction& b) { return a.address < b.address; });
    return out;
}

} // namespace ppe::debuginfo
