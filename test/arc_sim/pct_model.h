// A STAND-IN for an ARC core's performance counters (PCT), for tests only: no ARC emulator with
// counters can be had here (../shared/tools/qemu-arc has no PCT or CC registers), so the driver is
// checked against this model of the registers as the Linux ARC perf driver uses them (docs/
// user-guide.md says which ppe-arc tests stand on it). It counts exactly the events it is told the
// core had, only while PCT_CONTROL bit 0 runs the counters, and in the privilege levels each
// counter's PCT_CONFIG bits 18/19 allow. The simulated machine (machine.h) tells it only while it
// runs, so counters stand still while the core is halted, as on ARC hardware.
//
// Range counting: no public document names the PCT_CONFIG bit that limits a counter to the PCs in
// [PCT_RANGEL, PCT_RANGEH] (per counter, chosen by PCT_INDEX), so the model takes it from its
// configuration (`rangeEnableBit`; 0: the core has none, and the bit reads back clear).
#pragma once

#include "ppe/arc/aux_registers.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ppe::arc::testing {

class PctModel : public AuxRegisters {
public:
    struct Config {
        unsigned counters = 8;
        unsigned sizeField = 1; // counter width 32 + 16 * this
        bool interrupts = true;
        std::vector<std::string> conditions { "never", "always", "crun", "iall", "icm", "dcm", "bflush" };
        unsigned rangeEnableBit = 0; // PCT_CONFIG bit that enables the range; 0: none
    };
    explicit PctModel(Config config);

    // The core had `count` events of condition `name` in user (or kernel) mode, at `pc` (what range
    // counting compares).
    void happen(const std::string& name, uint64_t count, bool kernel = false, uint32_t pc = 0);

    Result<uint32_t> read(uint32_t address) override;
    gdbremote::Status write(uint32_t address, uint32_t value) override;
    std::string backEnd() const override { return "PCT model (a stand-in)"; }

    // Everything the registers hold, for comparing states.
    std::map<std::string, uint64_t> state() const;
    uint64_t count(unsigned counter) const { return m_counters.at(counter).count; }

private:
    struct Counter {
        uint32_t config = 0;
        uint64_t count = 0;
        uint32_t rangeLow = 0, rangeHigh = 0;
    };
    uint64_t mask() const;
    uint32_t configMask() const; // the PCT_CONFIG bits the core has
    bool counts(const Counter& c, const std::string& name, bool kernel, uint32_t pc) const;
    Counter& chosen();
    void control(uint32_t value);
    std::optional<uint32_t> nameWord(uint32_t address) const;

    Config m_config;
    std::vector<Counter> m_counters;
    uint32_t m_control = 0, m_index = 0, m_ccIndex = 0;
    uint64_t m_snapshot = 0;
    Counter m_none;
};

} // namespace ppe::arc::testing
