#include "ppe/arc/static_calls.h"

#include "ppe/arc/elf_image.h"
#include "ppe/arc/instruction.h"
#include "ppe/gdbremote/hex.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <elf.h>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

namespace ppe::arc {

namespace {

    constexpr uint64_t kMaxImageBytes = uint64_t(512) << 20; // a program image read whole

    // The image's bytes at link-time addresses, through its PT_LOAD segments.
    struct ImageBytes {
        const ElfImage& elf;
        std::string file;

        std::span<const uint8_t> at(uint64_t address, uint64_t size) const
        {
            for (const ElfSegment& s : elf.segments) {
                if (address < s.address || address - s.address >= s.fileSize)
                    continue;
                const uint64_t offset = s.fileOffset + (address - s.address);
                if (offset >= file.size())
                    return {};
                const uint64_t n = std::min({ size, s.fileSize - (address - s.address), file.size() - offset });
                return { reinterpret_cast<const uint8_t*>(file.data() + offset), size_t(n) };
            }
            return {};
        }
    };

    // The function holding `address`, or -1.
    long functionAt(const std::vector<ElfFunction>& functions, uint64_t address)
    {
        auto after = std::upper_bound(functions.begin(), functions.end(), address,
            [](uint64_t a, const ElfFunction& f) { return a < f.address; });
        if (after == functions.begin())
            return -1;
        const ElfFunction& f = *std::prev(after);
        return address - f.address < f.size ? long(std::prev(after) - functions.begin()) : -1;
    }

    // Every function whose entry a 32-bit word of a data segment holds: a function pointer.
    void markPointedTo(
        const ImageBytes& image, const std::vector<ElfFunction>& functions, CallGraph& g, StaticGraphStats& stats)
    {
        for (const ElfSegment& s : image.elf.segments) {
            if (s.executable)
                continue;
            const std::span<const uint8_t> data = image.at(s.address, s.fileSize);
            for (size_t i = 0; i + 4 <= data.size(); i += 4) {
                const uint32_t word = uint32_t(data[i]) | uint32_t(data[i + 1]) << 8 | uint32_t(data[i + 2]) << 16
                    | uint32_t(data[i + 3]) << 24;
                const long f = functionAt(functions, word);
                if (f >= 0 && functions[size_t(f)].address == word && !g.indirect[size_t(f)]) {
                    g.indirect[size_t(f)] = true;
                    ++stats.addressTaken;
                }
            }
        }
    }

    // Decodes function `index` and adds its calls (and the addresses its code takes) to `g`.
    void readFunction(const ImageBytes& image, const std::vector<ElfFunction>& functions, size_t index, CallGraph& g,
        StaticGraphStats& stats)
    {
        const ElfFunction& f = functions[index];
        const std::span<const uint8_t> code = image.at(f.address, f.size);
        for (uint64_t offset = 0; offset < code.size();) {
            Result<Instruction> insn = decodeInstruction(code.subspan(offset), f.address + offset);
            if (!insn || insn->size == 0) {
                ++stats.undecoded;
                return;
            }
            ++stats.instructions;
            offset += insn->size;
            if (insn->call && !insn->hasTarget) {
                ++stats.indirectCalls;
                continue;
            }
            const uint64_t to = insn->call ? insn->target : insn->hasLimm ? insn->limm : UINT64_MAX;
            const long callee = to == UINT64_MAX ? -1 : functionAt(functions, to);
            if (callee < 0)
                continue;
            if (insn->call) {
                ++stats.calls;
                g.call(uint32_t(index), uint32_t(callee));
            } else if (functions[size_t(callee)].address == to && !g.indirect[size_t(callee)]) {
                g.indirect[size_t(callee)] = true; // its address taken: `mov r0, fn` and the like
                ++stats.addressTaken;
            }
        }
    }

} // namespace

Result<std::vector<ElfFunction>> graphFunctions(const std::string& path)
{
    Result<std::vector<ElfFunction>> functions = readElfFunctions(path);
    if (!functions)
        return functions.error();
    functions->erase(std::unique(functions->begin(), functions->end(),
                         [](const ElfFunction& a, const ElfFunction& b) { return a.address == b.address; }),
        functions->end());
    std::set<std::string> seen;
    for (ElfFunction& f : *functions) {
        if (!seen.insert(f.name).second)
            f.name += "@0x" + gdbremote::hexNumber(f.address);
    }
    return functions;
}

Result<CallGraph> staticCallGraph(const std::string& path, StaticGraphStats* statsOut)
{
    Result<ElfImage> elf = readElfImage(path);
    if (!elf)
        return elf.error();
    if (elf->machine != EM_ARCV2 && elf->machine != EM_ARC_COMPACT)
        return Error { path, 0,
            "a static call graph is read from ARC code only (this is " + machineName(elf->machine)
                + "): give the graph with --graph" };
    Result<std::vector<ElfFunction>> functions = graphFunctions(path);
    if (!functions)
        return functions.error();
    std::error_code error;
    if (std::filesystem::file_size(path, error) > kMaxImageBytes || error)
        return Error { path, 0,
            error ? error.message() : "larger than " + std::to_string(kMaxImageBytes >> 20) + " MB" };
    std::ifstream in(path, std::ios::binary);
    ImageBytes image { *elf, {} };
    image.file.assign(std::istreambuf_iterator<char>(in), {});
    StaticGraphStats stats;
    CallGraph g;
    for (const ElfFunction& f : *functions)
        g.function(f.name);
    for (size_t i = 0; i < functions->size(); ++i)
        readFunction(image, *functions, i, g, stats);
    markPointedTo(image, *functions, g, stats);
    Result<std::vector<uint64_t>> pointed = readElfPointedAddresses(path);
    if (!pointed)
        return pointed.error();
    for (uint64_t address : *pointed) {
        const long f = functionAt(*functions, address);
        if (f >= 0 && (*functions)[size_t(f)].address == address && !g.indirect[size_t(f)]) {
            g.indirect[size_t(f)] = true;
            ++stats.addressTaken;
        }
    }
    stats.functions = functions->size();
    if (statsOut)
        *statsOut = stats;
    return g;
}

} // namespace ppe::arc
