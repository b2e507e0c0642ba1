// ARC auxiliary registers over a debug link, with three back ends, probed in this order and named
// in what ppe-arc reports:
//  1. registers of the target description, by name, through `p`/`P` (OpenOCD's board scripts add
//     them: `arc add-reg -name pct_config -num 0x254 -feature ...`); the names are looked up in
//     the table below, without regard to case;
//  2. OpenOCD's `monitor arc jtag get-aux-reg N` / `set-aux-reg N V` through `qRcmd`, which reach
//     any aux register whether or not the description has it;
//  3. an `lr`/`sr` stub the target runs itself (StubAuxRegisters), where the user names memory the
//     program can write and run (--aux-stub) and the core lets the program use those registers.
//     Not tried for a Linux user-mode program (the server offers the auxiliary vector: qemu-arc,
//     gdbserver on ARC Linux): there the PCT registers are privileged and `lr`/`sr` on them trap,
//     and trying would cost the user the session: qemu-arc runs a program's `lr r0,[lp_start]` but
//     aborts the whole emulator on `lr r1,[0x254]` ("unhandled CPU exception 0x2"), with no
//     signal a debugger could catch. The probe says so instead.
// Every write goes through the undo journal first (the old value), so detach and `ppe-arc restore`
// put back what was there.
#pragma once

#include "ppe/gdbremote/target_access.h"
#include "ppe/gdbremote/target_control.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::arc {

// Aux register addresses (ARCv2 PCT and countable conditions; the Linux ARC perf driver's names).
namespace aux {
    inline constexpr uint32_t kPctBuild = 0xF5, kCcBuild = 0xF6;
    inline constexpr uint32_t kCcIndex = 0x240, kCcName0 = 0x241, kCcName1 = 0x242;
    inline constexpr uint32_t kPctCountL = 0x250, kPctCountH = 0x251, kPctSnapL = 0x252, kPctSnapH = 0x253;
    inline constexpr uint32_t kPctConfig = 0x254, kPctControl = 0x255, kPctIndex = 0x256;
    inline constexpr uint32_t kPctRangeL = 0x259, kPctRangeH = 0x25A;
    inline constexpr uint32_t kPctIntCntL = 0x25C, kPctIntCntH = 0x25D, kPctIntCtrl = 0x25E, kPctIntAct = 0x25F;
} // namespace aux

// Register and condition names compare without regard to case (servers and cores spell them both
// ways).
bool sameNameAnyCase(std::string_view a, std::string_view b);

// The name servers use for an aux address ("pct_config"), or nullopt for one not in the table.
std::optional<std::string_view> auxName(uint32_t address);
// The address of an aux register named `name` (any case), or nullopt.
std::optional<uint32_t> auxAddress(std::string_view name);

class AuxRegisters {
public:
    virtual ~AuxRegisters() = default;
    virtual Result<uint32_t> read(uint32_t address) = 0;
    // Journalled: the old value is kept first, so that the change can be undone.
    virtual gdbremote::Status write(uint32_t address, uint32_t value) = 0;
    // A write its caller undoes itself at once (choosing a counter to read it, the snapshot bit):
    // not journalled, so that reading a counter costs no disk write. By default journalled all
    // the same.
    virtual gdbremote::Status writeTransient(uint32_t address, uint32_t value) { return write(address, value); }
    // Which back end this is, for the report.
    virtual std::string backEnd() const = 0;
};

// Back end 1: the registers of the target description (only those in the name table).
class DescribedAuxRegisters : public AuxRegisters {
public:
    explicit DescribedAuxRegisters(gdbremote::TargetAccess& access);
    // True when the description has `address` under one of its names.
    bool has(uint32_t address) const;
    Result<uint32_t> read(uint32_t address) override;
    gdbremote::Status write(uint32_t address, uint32_t value) override;
    gdbremote::Status writeTransient(uint32_t address, uint32_t value) override;
    std::string backEnd() const override { return "target description registers (p/P)"; }

private:
    const gdbremote::RegisterInfo* find(uint32_t address) const;
    gdbremote::TargetAccess& m_access;
};

// Back end 2: OpenOCD's `arc jtag get-aux-reg` / `set-aux-reg` monitor commands.
class MonitorAuxRegisters : public AuxRegisters {
public:
    explicit MonitorAuxRegisters(gdbremote::TargetAccess& access);
    Result<uint32_t> read(uint32_t address) override;
    gdbremote::Status write(uint32_t address, uint32_t value) override;
    gdbremote::Status writeTransient(uint32_t address, uint32_t value) override;
    std::string backEnd() const override { return "OpenOCD monitor arc jtag get-aux-reg/set-aux-reg"; }

private:
    gdbremote::TargetAccess& m_access;
};

// The value a monitor command printed: "0x1f", "31" (older OpenOCD prints Tcl integers), with
// surrounding white space; nullopt for anything else (an error message).
std::optional<uint32_t> parseMonitorNumber(std::string_view output);

// Back end 3: `lr r0,[r0]` and `sr r1,[r0]`, written once to `area` (run-time; kAuxStubBytes the
// program can write and run; left there, like the trampolines) and run by the target: a read or
// write saves the stopped thread's r0, r1, pc and status32, points the pc at the instruction, steps
// that thread over it (the last stop's thread: the server runs no other, where it steps one thread
// alone) and puts the registers back. A step that does not end
// past the instruction (it trapped: a privileged register, or one the core lacks) is an error
// naming the register, and its signal is not delivered. A write is journalled as a tool entry that
// runs the stub again with the old value (undoAuxStubWrite).
inline constexpr uint32_t kAuxStubBytes = 8;
std::vector<uint8_t> auxStubCode();

class StubAuxRegisters : public AuxRegisters {
public:
    StubAuxRegisters(gdbremote::TargetControl& control, gdbremote::TargetAccess& access, uint32_t area);
    Result<uint32_t> read(uint32_t address) override;
    gdbremote::Status write(uint32_t address, uint32_t value) override;
    gdbremote::Status writeTransient(uint32_t address, uint32_t value) override;
    std::string backEnd() const override;

private:
    Result<uint32_t> run(bool store, uint32_t address, uint32_t value);
    gdbremote::Status place();

    gdbremote::TargetControl& m_control;
    gdbremote::TargetAccess& m_access;
    uint32_t m_area;
    bool m_placed = false;
};

// Lets `access` undo the stub's journalled writes (its tool entries): at every attach that may use
// the stub, and by `ppe-arc restore`.
void undoAuxStubWrites(gdbremote::TargetControl& control, gdbremote::TargetAccess& access);

struct AuxProbe {
    std::unique_ptr<AuxRegisters> registers; // null: no back end reaches `needed`
    std::string report; // one line per back end tried, and why each was or was not taken
};

// Where back end 3 may run: `area` 0 when the user named none.
struct AuxStubArea {
    gdbremote::TargetControl* control = nullptr;
    uint32_t area = 0;
};

// The first back end that reads `needed` (e.g. aux::kPctBuild).
AuxProbe probeAuxRegisters(gdbremote::TargetAccess& access, uint32_t needed, const AuxStubArea& stub = {});

} // namespace ppe::arc
