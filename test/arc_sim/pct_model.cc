#include "pct_model.h"

#include <cstring>

namespace ppe::arc::testing {

PctModel::PctModel(Config config)
    : m_config(std::move(config))
    , m_counters(m_config.counters)
{
}

uint64_t PctModel::mask() const
{
    const unsigned bits = 32 + 16 * m_config.sizeField;
    return bits >= 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
}

void PctModel::happen(const std::string& name, uint64_t count, bool kernel)
{
    if (!(m_control & 1))
        return;
    for (Counter& c : m_counters) {
        const uint32_t condition = c.config & 0xFFFF;
        const bool userOnly = c.config & (1u << 18), kernelOnly = c.config & (1u << 19);
        if (condition == 0 || condition >= m_config.conditions.size() || m_config.conditions[condition] != name)
            continue;
        if ((userOnly && kernel) || (kernelOnly && !kernel))
            continue;
        c.count = (c.count + count) & mask();
    }
}

Result<uint32_t> PctModel::read(uint32_t address)
{
    auto nameWord = [this](int word) {
        char text[8] = {};
        if (m_ccIndex < m_config.conditions.size())
            std::strncpy(text, m_config.conditions[m_ccIndex].c_str(), sizeof(text));
        uint32_t value = 0;
        std::memcpy(&value, text + 4 * word, 4); // little-endian host, as the core
        return value;
    };
    static Counter none;
    Counter& c = m_index < m_counters.size() ? m_counters[m_index] : none;
    switch (address) {
    case aux::kPctBuild:
        return uint32_t(m_config.counters) << 16 | uint32_t(m_config.interrupts) << 10 | m_config.sizeField << 8 | 3;
    case aux::kCcBuild:
        return uint32_t(m_config.conditions.size()) << 16 | 1;
    case aux::kCcIndex:
        return m_ccIndex;
    case aux::kCcName0:
        return nameWord(0);
    case aux::kCcName1:
        return nameWord(1);
    case aux::kPctIndex:
        return m_index;
    case aux::kPctConfig:
        return c.config;
    case aux::kPctCountL:
        return uint32_t(c.count);
    case aux::kPctCountH:
        return uint32_t(c.count >> 32);
    case aux::kPctSnapL:
        return uint32_t(m_snapshot);
    case aux::kPctSnapH:
        return uint32_t(m_snapshot >> 32);
    case aux::kPctControl:
        return m_control;
    }
    return Error { "", 0, "the model has no aux register " + std::to_string(address) };
}

gdbremote::Status PctModel::write(uint32_t address, uint32_t value)
{
    Counter ignored; // a write to a counter the core does not have goes nowhere
    Counter& c = m_index < m_counters.size() ? m_counters[m_index] : ignored;
    switch (address) {
    case aux::kCcIndex:
        m_ccIndex = value;
        break;
    case aux::kPctIndex:
        m_index = value;
        break;
    case aux::kPctConfig:
        c.config = value;
        break;
    case aux::kPctCountL:
        c.count = (c.count & ~uint64_t(0xFFFFFFFF)) | value;
        break;
    case aux::kPctCountH:
        c.count = ((c.count & 0xFFFFFFFF) | uint64_t(value) << 32) & mask();
        break;
    case aux::kPctControl:
        if (value & (1u << 16)) { // clear: every counter to 0; the bit does not stay
            for (Counter& each : m_counters)
                each.count = 0;
        }
        if (value & (1u << 17)) // snapshot of the chosen counter; the bit does not stay
            m_snapshot = c.count;
        m_control = value & ~(3u << 16);
        break;
    default:
        return Error { "", 0, "the model cannot write aux register " + std::to_string(address) };
    }
    return std::monostate {};
}

std::map<std::string, uint64_t> PctModel::state() const
{
    std::map<std::string, uint64_t> s { { "control", m_control }, { "index", m_index }, { "cc_index", m_ccIndex } };
    for (size_t i = 0; i < m_counters.size(); ++i) {
        s["config" + std::to_string(i)] = m_counters[i].config;
        s["count" + std::to_string(i)] = m_counters[i].count;
    }
    return s;
}

} // namespace ppe::arc::testing
