#include "pct_model.h"

#include <algorithm>
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

uint32_t PctModel::configMask() const
{
    const uint32_t range = m_config.rangeEnableBit ? 1u << m_config.rangeEnableBit : 0;
    return 0xFFFFu | 3u << 18 | range;
}

PctModel::Counter& PctModel::chosen()
{
    // Reads and writes of a counter the core does not have go to this one, never counted.
    m_none = Counter {};
    return m_index < m_counters.size() ? m_counters[m_index] : m_none;
}

bool PctModel::counts(const Counter& c, const std::string& name, bool kernel, uint32_t pc) const
{
    const uint32_t condition = c.config & 0xFFFF;
    const bool userOnly = c.config & (1u << 18), kernelOnly = c.config & (1u << 19);
    if (condition == 0 || condition >= m_config.conditions.size() || m_config.conditions[condition] != name)
        return false;
    if ((userOnly && kernel) || (kernelOnly && !kernel))
        return false;
    const bool ranged = m_config.rangeEnableBit && (c.config & (1u << m_config.rangeEnableBit));
    return !ranged || (pc >= c.rangeLow && pc <= c.rangeHigh);
}

void PctModel::happen(const std::string& name, uint64_t count, bool kernel, uint32_t pc)
{
    if (!(m_control & 1))
        return;
    for (Counter& c : m_counters) {
        if (counts(c, name, kernel, pc))
            c.count = (c.count + count) & mask();
    }
}

std::optional<uint32_t> PctModel::nameWord(uint32_t address) const
{
    if (address != aux::kCcName0 && address != aux::kCcName1)
        return std::nullopt;
    char text[8] = {};
    if (m_ccIndex < m_config.conditions.size()) {
        const std::string& name = m_config.conditions[m_ccIndex];
        std::memcpy(text, name.data(), std::min(name.size(), sizeof(text)));
    }
    uint32_t value = 0;
    std::memcpy(&value, text + (address == aux::kCcName1 ? 4 : 0), 4); // little-endian host, as the core
    return value;
}

Result<uint32_t> PctModel::read(uint32_t address)
{
    if (std::optional<uint32_t> word = nameWord(address))
        return *word;
    const Counter& c = chosen();
    switch (address) {
    case aux::kPctBuild:
        return uint32_t(m_config.counters) << 16 | uint32_t(m_config.interrupts) << 10 | m_config.sizeField << 8 | 3;
    case aux::kCcBuild:
        return uint32_t(m_config.conditions.size()) << 16 | 1;
    case aux::kCcIndex:
        return m_ccIndex;
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
    case aux::kPctRangeL:
        return c.rangeLow;
    case aux::kPctRangeH:
        return c.rangeHigh;
    case aux::kPctIntCntL:
    case aux::kPctIntCntH:
    case aux::kPctIntCtrl:
    case aux::kPctIntAct:
        return 0; // no overflow interrupts are modelled: they read as off
    }
    return Error { "", 0, "the model has no aux register " + std::to_string(address) };
}

void PctModel::control(uint32_t value)
{
    if (value & (1u << 16)) { // clear: every counter to 0; the bit does not stay
        for (Counter& each : m_counters)
            each.count = 0;
    }
    if (value & (1u << 17)) // snapshot of the chosen counter; the bit does not stay
        m_snapshot = chosen().count;
    m_control = value & ~(3u << 16);
}

gdbremote::Status PctModel::write(uint32_t address, uint32_t value)
{
    Counter& c = chosen();
    switch (address) {
    case aux::kCcIndex:
        m_ccIndex = value;
        break;
    case aux::kPctIndex:
        m_index = value;
        break;
    case aux::kPctConfig:
        c.config = value & configMask();
        break;
    case aux::kPctCountL:
        c.count = (c.count & ~uint64_t(0xFFFFFFFF)) | value;
        break;
    case aux::kPctCountH:
        c.count = ((c.count & 0xFFFFFFFF) | uint64_t(value) << 32) & mask();
        break;
    case aux::kPctRangeL:
        c.rangeLow = value;
        break;
    case aux::kPctRangeH:
        c.rangeHigh = value;
        break;
    case aux::kPctControl:
        control(value);
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
        const std::string n = std::to_string(i);
        s["config" + n] = m_counters[i].config;
        s["count" + n] = m_counters[i].count;
        s["rangel" + n] = m_counters[i].rangeLow;
        s["rangeh" + n] = m_counters[i].rangeHigh;
    }
    return s;
}

} // namespace ppe::arc::testing
