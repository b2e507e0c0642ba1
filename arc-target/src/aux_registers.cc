#include "ppe/arc/aux_registers.h"

#include "ppe/arc/trampoline.h"

#include "ppe/gdbremote/hex.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <sstream>

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

std::vector<uint8_t> auxStubCode()
{
    std::vector<uint8_t> code;
    encode::lrReg(code, 0, 0); // lr r0,[r0]
    encode::srReg(code, 1, 0); // sr r1,[r0]
    return code;
}

StubAuxRegisters::StubAuxRegisters(gdbremote::TargetControl& control, gdbremote::TargetAccess& access, uint32_t area)
    : m_control(control)
    , m_access(access)
    , m_area(area)
{
}

std::string StubAuxRegisters::backEnd() const { return "lr/sr stub at " + hex(m_area); }

// The stub, written where it is not already (a second write to code the target has run is refused
// by some servers: qemu-arc's E14).
gdbremote::Status StubAuxRegisters::place()
{
    if (m_placed)
        return std::monostate {};
    const std::vector<uint8_t> code = auxStubCode();
    const std::string bytes(code.begin(), code.end());
    Result<std::string> there = m_access.readMemory(m_area, bytes.size());
    if (!there)
        return there.error();
    if (*there != bytes) {
        if (gdbremote::Status written = m_access.writeMemoryRaw(m_area, bytes); !written)
            return Error { "", 0, "cannot write the lr/sr stub at " + hex(m_area) + ": " + written.error().message };
    }
    m_placed = true;
    return std::monostate {};
}

Result<uint32_t> StubAuxRegisters::run(bool store, uint32_t address, uint32_t value)
{
    if (gdbremote::Status placed = place(); !placed)
        return placed.error();
    struct Saved {
        const gdbremote::RegisterInfo* reg;
        std::string bytes;
    };
    std::vector<Saved> saved;
    for (const char* name : { "r0", "r1", "pc", "status32" }) { // status32: an exception changes it
        const gdbremote::RegisterInfo* reg = m_access.registerNamed(name);
        Result<std::string> bytes = reg ? m_access.readRegisterBytes(*reg) : Result<std::string>(std::string());
        if (!bytes || (!reg && std::string_view(name) != "status32"))
            return Error { "", 0,
                "the lr/sr stub needs " + std::string(name) + ": "
                    + (bytes ? "not in the description" : bytes.error().message) };
        if (reg)
            saved.push_back({ reg, *bytes });
    }
    const uint32_t at = m_area + (store ? 4 : 0);
    const auto set = [&](size_t i, uint32_t v) {
        return m_access.writeRegisterBytes(*saved[i].reg, gdbremote::registerBytes(v, saved[i].reg->bytes(), false));
    };
    // The stopped thread alone is stepped (its registers are the ones `p` and `P` reach).
    const auto& last = m_control.session().lastStop();
    const std::string thread = last ? last->thread : std::string();
    gdbremote::Status ready = set(0, address);
    ready = ready ? set(1, value) : ready;
    ready = ready ? set(2, at) : ready;
    Result<gdbremote::StopReply> stepped = ready ? m_control.step(thread) : Result<gdbremote::StopReply>(ready.error());
    const bool ran = stepped && stepped->stopped();
    Result<uint64_t> pc = ran ? m_access.readRegister("pc") : Result<uint64_t>(uint64_t(0));
    Result<uint64_t> result = ran ? m_access.readRegister("r0") : Result<uint64_t>(uint64_t(0));
    gdbremote::Status restored = std::monostate {};
    for (const Saved& s : saved) { // every one, whatever happened, unless the program ended
        gdbremote::Status put = stepped && stepped->ended() ? gdbremote::Status(std::monostate {})
                                                            : m_access.writeRegisterBytes(*s.reg, s.bytes);
        restored = restored ? put : restored;
    }
    const std::string what = std::string(store ? "sr" : "lr") + " on " + registerName(address);
    if (!stepped)
        return stepped.error();
    if (!ran)
        return Error { m_control.session().peer(), 0,
            "the step over the stub's " + what + " ended " + (stepped->ended() ? "the program" : "with no stop") };
    if (!restored)
        return Error { "", 0,
            "the stub's " + what
                + " ran, but the thread's registers could not be put back: " + restored.error().message };
    if (!pc || !result)
        return !pc ? pc.error() : result.error();
    if ((stepped->code != 5 && stepped->code != 0) || *pc != at + 4)
        return Error { m_control.session().peer(), 0,
            what + " did not complete (signal " + std::to_string(stepped->code) + ", pc " + hex(uint32_t(*pc))
                + "): the core does not let the program use it" };
    return uint32_t(*result);
}

Result<uint32_t> StubAuxRegisters::read(uint32_t address) { return run(false, address, 0); }

gdbremote::Status StubAuxRegisters::writeTransient(uint32_t address, uint32_t value)
{
    Result<uint32_t> done = run(true, address, value);
    return done ? gdbremote::Status(std::monostate {}) : gdbremote::Status(done.error());
}

gdbremote::Status StubAuxRegisters::write(uint32_t address, uint32_t value)
{
    Result<uint32_t> old = read(address);
    if (!old)
        return old.error();
    return m_access.toolChange("aux-stub " + hex(m_area) + " " + hex(address) + " " + hex(*old),
        [&] { return writeTransient(address, value); });
}

void undoAuxStubWrites(gdbremote::TargetControl& control, gdbremote::TargetAccess& access)
{
    access.setToolUndo([&control, &access](const std::string& text) -> gdbremote::Status {
        std::istringstream words(text);
        std::string kind;
        uint32_t area = 0, address = 0, value = 0;
        words >> kind >> std::hex >> area >> address >> value;
        if (kind != "aux-stub" || !words || !(words >> std::ws).eof())
            return Error { "", 0, "not an undo of the lr/sr stub: '" + text + "'" };
        return StubAuxRegisters(control, access, area).writeTransient(address, value);
    });
}

AuxProbe probeAuxRegisters(gdbremote::TargetAccess& access, uint32_t needed, const AuxStubArea& stub)
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
    if (!stub.area || !stub.control) {
        probe.report += "lr/sr stub: not tried: no --aux-stub (memory the program can write and run)\n";
    } else if (stub.control->session().features().auxvRead) {
        probe.report += "lr/sr stub: not tried: the target is a Linux user-mode program (the server offers its "
                        "auxiliary vector), where "
            + registerName(needed)
            + " is privileged and lr/sr on it traps "
              "(qemu-arc aborts)\n";
    } else if (auto registers = std::make_unique<StubAuxRegisters>(*stub.control, access, stub.area);
               Result<uint32_t> value = registers->read(needed)) {
        probe.report += "lr/sr stub: " + registerName(needed) + " = " + hex(*value) + ": used\n";
        probe.registers = std::move(registers);
    } else {
        probe.report += "lr/sr stub: " + value.error().message + "\n";
    }
    return probe;
}

} // namespace ppe::arc
