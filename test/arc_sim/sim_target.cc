#include "sim_target.h"

#include <fstream>
#include <iterator>

namespace ppe::arc::sim {

namespace {
    // A writable data area besides the image (a stack-like region), where `M`/`X` tests may write.
    constexpr uint32_t kDataStart = 0x5fff0000u, kDataEnd = 0x60000000u;
} // namespace

SimTarget::SimTarget(ElfImage image, std::string bytes, std::unique_ptr<Machine> machine, testing::PctModel::Config pct)
    : m_image(std::move(image))
    , m_file(std::move(bytes))
    , m_pct(std::move(pct))
    , m_machine(std::move(machine))
{
}

Result<std::unique_ptr<SimTarget>> SimTarget::load(const TargetOptions& options)
{
    Result<ElfImage> image = readElfImage(options.elf);
    if (!image)
        return image.error();
    if (image->machine != 195 || image->is64) // EM_ARCV2
        return Error { options.elf, 0, "not an ARC HS (ARCv2) executable: machine " + machineName(image->machine) };
    Result<std::vector<FunctionSymbol>> symbols = readFunctionSymbols(options.elf);
    if (!symbols)
        return symbols.error();
    Result<CallTree> tree = readCallTree(options.tree);
    if (!tree)
        return tree.error();
    if (Result<std::monostate> placed = placeFunctions(*tree, *symbols); !placed)
        return Error { options.tree, 0, placed.error().message };
    std::ifstream in(options.elf, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const uint32_t exit = uint32_t(image->entry);
    std::unique_ptr<SimTarget> target(new SimTarget(std::move(*image), std::move(bytes), nullptr, options.pct));
    target->m_machine = std::make_unique<Machine>(std::move(*tree), target->m_pct, exit);
    return target;
}

uint32_t SimTarget::readRegister(const SimRegister& reg)
{
    switch (reg.kind) {
    case SimRegister::Kind::Pc:
        return m_machine->pc();
    case SimRegister::Kind::Status32:
        return m_machine->kernelMode() ? 0 : 1u << 7; // U: user mode
    case SimRegister::Kind::Aux: {
        Result<uint32_t> value = m_pct.read(reg.index);
        return value ? *value : 0;
    }
    case SimRegister::Kind::Core:
        if (reg.index == 31)
            return m_machine->blink();
        if (reg.index == 28)
            return m_machine->sp();
        break;
    case SimRegister::Kind::Plain:
        if (reg.name == "pcl")
            return m_machine->pc() & ~3u;
        break;
    }
    const auto it = m_plain.find(reg.name);
    return it == m_plain.end() ? 0 : it->second;
}

bool SimTarget::writeRegister(const SimRegister& reg, uint32_t value)
{
    if (readRegister(reg) == value)
        return reg.kind != SimRegister::Kind::Aux || bool(m_pct.write(reg.index, value));
    switch (reg.kind) {
    case SimRegister::Kind::Aux:
        return bool(m_pct.write(reg.index, value));
    case SimRegister::Kind::Pc:
    case SimRegister::Kind::Status32:
        return false; // the machine's walk decides these
    case SimRegister::Kind::Core:
        if (reg.index == 31 || reg.index == 28)
            return false;
        break;
    case SimRegister::Kind::Plain:
        if (reg.name == "pcl")
            return false;
        break;
    }
    m_plain[reg.name] = value;
    return true;
}

bool SimTarget::inCode(uint32_t address, size_t length) const
{
    for (const ElfSegment& s : m_image.segments) {
        if (s.executable && address < s.address + s.memSize && address + length > s.address)
            return true;
    }
    return false;
}

std::optional<std::string> SimTarget::readMemory(uint32_t address, size_t length) const
{
    std::string out;
    for (uint64_t a = address; a < uint64_t(address) + length; ++a) {
        if (const auto it = m_written.find(uint32_t(a)); it != m_written.end()) {
            out += it->second;
            continue;
        }
        uint64_t offset = 0;
        if (a >= kDataStart && a < kDataEnd)
            out += '\0';
        else if (m_image.fileOffsetOf(a, offset) && offset < m_file.size())
            out += m_file[offset];
        else
            return std::nullopt;
    }
    return out;
}

bool SimTarget::writeMemory(uint32_t address, const std::string& bytes)
{
    if (!readMemory(address, bytes.size()))
        return false;
    for (size_t i = 0; i < bytes.size(); ++i)
        m_written[uint32_t(address + i)] = bytes[i];
    return true;
}

} // namespace ppe::arc::sim
