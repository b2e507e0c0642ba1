#include "ppe/arc/aux_registers.h"

#include "ppe/gdbremote/hex.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>

namespace ppe::arc {

namespace {

    struct Named {
        uint32_t address;
        std::string_view name;
    };

    // The names OpenOCD's ARC scripts and the Linux perf driver give these registers.
    constexpr Named kNames[] = { { aux::kPctBuild, "pct_build" }, { aux::kCcBuild, "cc_build" },
        { aux::kCcIndex, "cc_index" }, { aux::kCcName0, "cc_name0" }, { aux::kCcName1, "cc_name1" },
        { aux::kPctCountL, "pct_countl" }, { aux::kPctCountH, "pct_counth" }, { aux::kPctSnapL, "pct_snapl" },
        { aux::kPctSnapH, "pct_snaph" }, { aux::kPctConfig, "pct_config" }, { aux::kPctControl, "pct_control" },
        { aux::kPctIndex, "pct_index" }, { aux::kPctRangeL, "pct_rangel" }, { aux::kPctRangeH, "pct_rangeh" },
        { aux::kPctIntCntL, "pct_int_cntl" }, { aux::kPctIntCntH, "pct_int_cnth" },
        { aux::kPctIntCtrl, "pct_int_ctrl" }, { aux::kPctIntAct, "pct_int_act" } };

    std::string hex(uint32_t value)
    {
        char text[16];
        std::snprintf(text, sizeof(text), "0x%x", value);
        return text;
    }

    std::string registerName(uint32_t address)
    {
        const auto name = auxName(address);
        return name ? std::string(*name) + " (" + hex(address) + ")" : "aux register " + hex(address);
    }

} // namespace

bool sameNameAnyCase(std::string_view a, std::string_view b)
{
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
    });
}

std::optional<std::string_view> auxName(uint32_t address)
{
    for (const Named& n : kNames) {
        if (n.address == address)
            return n.name;
    }
    return std::nullopt;
}

std::optional<uint32_t> auxAddress(std::string_view name)
{
    for (const Named& n : kNames) {
        if (sameNameAnyCase(n.name, name))
            return n.address;
    }
    return std::nullopt;
}

std::optional<uint32_t> parseMonitorNumber(std::string_view output)
{
    const size_t first = output.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos)
        return std::nullopt;
    output = output.substr(first, output.find_last_not_of(" \t\r\n") - first + 1);
    const bool isHex = output.size() > 2 && output[0] == '0' && (output[1] == 'x' || output[1] == 'X');
    const std::string_view digits = isHex ? output.substr(2) : output;
    uint32_t value = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value, isHex ? 16 : 10);
    if (error != std::errc() || end != digits.data() + digits.size() || digits.empty())
        return std::nullopt;
    return value;
}

DescribedAuxRegisters::DescribedAuxRegisters(gdbremote::TargetAccess& access)
    : m_access(access)
{
}

const gdbremote::RegisterInfo* DescribedAuxRegisters::find(uint32_t address) const
{
    const auto name = auxName(address);
    if (!name)
        return nullptr;
    std::string upper(*name); // OpenOCD's scripts use lower case; a user's may not
    std::transform(upper.begin(), upper.end(), upper.begin(), [](char c) { return char(std::toupper(c)); });
    const gdbremote::RegisterInfo* reg = m_access.registerNamed(std::string(*name));
    return reg ? reg : m_access.registerNamed(upper);
}

bool DescribedAuxRegisters::has(uint32_t address) const { return find(address) != nullptr; }

Result<uint32_t> DescribedAuxRegisters::read(uint32_t address)
{
    const gdbremote::RegisterInfo* reg = find(address);
    if (!reg)
        return Error { "", 0, "the target description has no " + registerName(address) };
    Result<uint64_t> value = m_access.readRegister(reg->name);
    if (!value)
        return value.error();
    return uint32_t(*value);
}

gdbremote::Status DescribedAuxRegisters::write(uint32_t address, uint32_t value)
{
    const gdbremote::RegisterInfo* reg = find(address);
    if (!reg)
        return Error { "", 0, "the target description has no " + registerName(address) };
    return m_access.writeRegister(reg->name, value);
}

gdbremote::Status DescribedAuxRegisters::writeTransient(uint32_t address, uint32_t value)
{
    const gdbremote::RegisterInfo* reg = find(address);
    if (!reg)
        return Error { "", 0, "the target description has no " + registerName(address) };
    return m_access.writeRegisterBytes(*reg, gdbremote::registerBytes(value, reg->bytes(), false)); // ARC: LE
}

MonitorAuxRegisters::MonitorAuxRegisters(gdbremote::TargetAccess& access)
    : m_access(access)
{
}

Result<uint32_t> MonitorAuxRegisters::read(uint32_t address)
{
    Result<std::string> output = m_access.monitor("arc jtag get-aux-reg " + hex(address));
    if (!output)
        return output.error();
    const std::optional<uint32_t> value = parseMonitorNumber(*output);
    if (!value)
        return Error { "", 0, "cannot read " + registerName(address) + ": the monitor said '" + *output + "'" };
    return *value;
}

gdbremote::Status MonitorAuxRegisters::write(uint32_t address, uint32_t value)
{
    Result<uint32_t> old = read(address);
    if (!old)
        return old.error();
    const std::string set = "arc jtag set-aux-reg " + hex(address) + " ";
    return m_access.monitorChange(set + hex(value), set + hex(*old));
}

gdbremote::Status MonitorAuxRegisters::writeTransient(uint32_t address, uint32_t value)
{
    Result<std::string> done = m_access.monitor("arc jtag set-aux-reg " + hex(address) + " " + hex(value));
    return done ? gdbremote::Status(std::monostate {}) : gdbremote::Status(done.error());
}

AuxProbe probeAuxRegisters(gdbremote::TargetAccess& access, uint32_t needed)
{
    AuxProbe probe;
    auto described = std::make_unique<DescribedAuxRegisters>(access);
    if (!described->has(needed)) {
        probe.report += "target description: no " + registerName(needed) + "\n";
    } else if (Result<uint32_t> value = described->read(needed); !value) {
        probe.report += "target description: " + value.error().message + "\n";
    } else {
        probe.report += "target description: " + registerName(needed) + " = " + hex(*value) + ": used\n";
        probe.registers = std::move(described);
        return probe;
    }
    auto monitor = std::make_unique<MonitorAuxRegisters>(access);
    if (Result<uint32_t> value = monitor->read(needed); !value) {
        probe.report += "monitor arc jtag: " + value.error().message + "\n";
    } else {
        probe.report += "monitor arc jtag: " + registerName(needed) + " = " + hex(*value) + ": used\n";
        probe.registers = std::move(monitor);
        return probe;
    }
    probe.report += "lr/sr stub: not tried: the PCT registers are privileged, and lr/sr on them traps in a "
                    "user-mode program (a bare-metal target with writable code would allow it)\n";
    return probe;
}

} // namespace ppe::arc
