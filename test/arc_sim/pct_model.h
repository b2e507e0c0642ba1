// A STAND-IN for an ARC core's performance counters (PCT), for tests only: no ARC emulator with
// counters can be had here (../shared/tools/qemu-arc has no PCT or CC registers), so the driver is
// checked against this model of the registers as the Linux ARC perf driver uses them (docs/
// user-guide.md says which ppe-arc tests stand on it). It counts exactly the events it is told the
// core had, only while PCT_CONTROL bit 0 runs the counters, and in the privilege levels each
// counter's PCT_CONFIG bits 18/19 allow.
#pragma once

#include "ppe/arc/aux_registers.h"

#include <map>
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
    };
    explicit PctModel(Config config);

    // The core had `count` events of condition `name` in user (or kernel) mode.
    void happen(const std::string& name, uint64_t count, bool kernel = false);

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
    };
    uint64_t mask() const;

    Config m_config;
    std::vector<Counter> m_counters;
    uint32_t m_control = 0, m_index = 0, m_ccIndex = 0;
    uint64_t m_snapshot = 0;
};

} // namespace ppe::arc::testing
