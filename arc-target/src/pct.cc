#include "ppe/arc/pct.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace ppe::arc {

namespace {

    constexpr uint32_t kRun = 1u << 0;
    constexpr uint32_t kSnapshot = 1u << 17;
    constexpr uint32_t kUserOnly = 1u << 18;
    constexpr uint32_t kKernelOnly = 1u << 19;
    // More conditions than any core has: a damaged or hostile reply cannot make the probe long.
    constexpr unsigned kMaxConditions = 1024;

    PctBuild decodeBuild(uint32_t bits)
    {
        // v:8, s:2, i:1, r:5, c:8, m:8 from bit 0 (the Linux driver's struct arc_reg_pct_build).
        return { bits & 0xFF, (bits >> 16) & 0xFF, 32 + 16 * ((bits >> 8) & 3), ((bits >> 10) & 1) != 0, bits };
    }

} // namespace

std::string conditionName(uint32_t name0, uint32_t name1)
{
    std::string name;
    for (uint32_t word : { name0, name1 }) {
        for (int i = 0; i < 4; ++i, word >>= 8)
            name += char(word & 0xFF);
    }
    name.erase(std::find(name.begin(), name.end(), '\0'), name.end());
    name.erase(name.find_last_not_of(' ') + 1);
    return name;
}

Result<Pct> Pct::open(AuxRegisters& registers)
{
    Pct pct(registers);
    Result<uint32_t> build = registers.read(aux::kPctBuild);
    if (!build)
        return build.error();
    pct.m_build = decodeBuild(*build);
    if (pct.m_build.version == 0 || pct.m_build.counters == 0)
        return Error { "", 0, "the core has no performance counters (PCT_BUILD is " + std::to_string(*build) + ")" };
    Result<uint32_t> ccBuild = registers.read(aux::kCcBuild);
    if (!ccBuild)
        return ccBuild.error();
    if ((*ccBuild & 0xFF) == 0)
        return Error { "", 0, "the core has counters but no countable conditions (CC_BUILD is 0)" };
    Result<std::vector<CountableCondition>> conditions = pct.readConditions(*ccBuild >> 16);
    if (!conditions)
        return conditions.error();
    pct.m_conditions = std::move(*conditions);
    return pct;
}

Result<std::vector<CountableCondition>> Pct::readConditions(unsigned count)
{
    std::vector<CountableCondition> out;
    for (uint32_t i = 0; i < std::min(count, kMaxConditions); ++i) {
        if (gdbremote::Status chosen = m_aux->write(aux::kCcIndex, i); !chosen)
            return chosen.error();
        Result<uint32_t> name0 = m_aux->read(aux::kCcName0);
        Result<uint32_t> name1 = name0 ? m_aux->read(aux::kCcName1) : name0;
        if (!name1)
            return name1.error();
        out.push_back({ i, conditionName(*name0, *name1) });
    }
    return out;
}

Result<uint32_t> Pct::condition(std::string_view name) const
{
    for (const CountableCondition& c : m_conditions) {
        if (sameNameAnyCase(c.name, name))
            return c.index;
    }
    return Error { "", 0, "no countable condition '" + std::string(name) + "' (ppe-arc conditions lists them)" };
}

gdbremote::Status Pct::select(unsigned counter)
{
    if (counter >= m_build.counters)
        return Error { "", 0,
            "no counter " + std::to_string(counter) + ": the core has " + std::to_string(m_build.counters) };
    return m_aux->write(aux::kPctIndex, counter);
}

gdbremote::Status Pct::configure(unsigned counter, uint32_t condition, CountIn where)
{
    if (gdbremote::Status chosen = select(counter); !chosen)
        return chosen;
    const uint32_t bits = where == CountIn::User ? kUserOnly : where == CountIn::Kernel ? kKernelOnly : 0;
    for (auto [address, value] : { std::pair { aux::kPctConfig, condition | bits }, std::pair { aux::kPctCountL, 0u },
             std::pair { aux::kPctCountH, 0u } }) {
        if (gdbremote::Status written = m_aux->write(address, value); !written)
            return written;
    }
    return std::monostate {};
}

gdbremote::Status Pct::limitToRange(unsigned counter, uint32_t low, uint32_t high, const CoreProfile& profile)
{
    if (high < low || (!profile.rangeEndInclusive && high == 0xFFFFFFFFu))
        return Error { "", 0, "an empty or impossible PC range" };
    gdbremote::Status done = select(counter);
    done = done ? m_aux->write(aux::kPctRangeL, low) : done;
    done = done ? m_aux->write(aux::kPctRangeH, profile.rangeEndInclusive ? high : high + 1) : done;
    Result<uint32_t> before = done ? m_aux->read(profile.rangeRegister) : Result<uint32_t>(done.error());
    const uint32_t bit = 1u << profile.rangeBit;
    done = before ? m_aux->write(profile.rangeRegister, *before | bit) : before.error();
    Result<uint32_t> after = done ? m_aux->read(profile.rangeRegister) : Result<uint32_t>(done.error());
    if (!after)
        return after.error();
    if (!(*after & bit)) {
        char values[64];
        std::snprintf(values, sizeof(values), "wrote 0x%x, read back 0x%x", *before | bit, *after);
        const std::optional<std::string_view> name = auxName(profile.rangeRegister);
        return Error { "", 0,
            "the core does not keep bit " + std::to_string(profile.rangeBit) + " of "
                + (name ? std::string(*name) : "aux " + std::to_string(profile.rangeRegister)) + " (" + values
                + "): range counting is off; the core profile (core " + profile.core
                + ") is not this core's, or this core counts no ranges" };
    }
    return std::monostate {};
}

gdbremote::Status Pct::disable(unsigned counter)
{
    gdbremote::Status chosen = select(counter);
    return chosen ? m_aux->write(aux::kPctConfig, 0) : chosen;
}

gdbremote::Status Pct::setControl(uint32_t keep, uint32_t bits)
{
    Result<uint32_t> control = m_aux->read(aux::kPctControl);
    if (!control)
        return control.error();
    return m_aux->write(aux::kPctControl, (*control & keep) | bits);
}

gdbremote::Status Pct::start() { return setControl(0xFFFF0000u, kRun); }
gdbremote::Status Pct::stop() { return setControl(0xFFFF0000u, 0); }
// Counter by counter rather than with PCT_CONTROL's clear bit: each zero is journalled with the
// count it replaced, so undoing the journal gives another user of the core its counts back.
gdbremote::Status Pct::clear()
{
    for (unsigned counter = 0; counter < m_build.counters; ++counter) {
        gdbremote::Status chosen = select(counter);
        gdbremote::Status low = chosen ? m_aux->write(aux::kPctCountL, 0) : chosen;
        gdbremote::Status high = low ? m_aux->write(aux::kPctCountH, 0) : low;
        if (!high)
            return high;
    }
    return std::monostate {};
}

// Reads leave no trace in the journal: the counter is chosen and snapshotted by transient writes,
// and PCT_INDEX put back to what it held, so that the journal's entries still undo in the order and
// on the counters they were made (a count read in a breakpoint stop costs no disk write).
Result<uint64_t> Pct::read(unsigned counter)
{
    if (counter >= m_build.counters)
        return Error { "", 0,
            "no counter " + std::to_string(counter) + ": the core has " + std::to_string(m_build.counters) };
    Result<uint32_t> chosen = m_aux->read(aux::kPctIndex);
    if (!chosen)
        return chosen.error();
    gdbremote::Status done
        = *chosen == counter ? gdbremote::Status(std::monostate {}) : m_aux->writeTransient(aux::kPctIndex, counter);
    Result<uint32_t> control = done ? m_aux->read(aux::kPctControl) : Result<uint32_t>(done.error());
    done = control ? m_aux->writeTransient(aux::kPctControl, *control | kSnapshot) : control.error();
    Result<uint32_t> high = done ? m_aux->read(aux::kPctSnapH) : Result<uint32_t>(done.error());
    Result<uint32_t> low = high ? m_aux->read(aux::kPctSnapL) : high;
    if (*chosen != counter) { // back to the counter the journal last chose, whatever happened
        if (gdbremote::Status back = m_aux->writeTransient(aux::kPctIndex, *chosen); !back && low)
            return back.error();
    }
    if (!low)
        return low.error();
    const uint64_t value = uint64_t(*high) << 32 | *low;
    return m_build.counterBits >= 64 ? value : value & ((uint64_t(1) << m_build.counterBits) - 1);
}

} // namespace ppe::arc
