// The ARC performance counters (PCT) through aux registers (aux_registers.h), as the Linux ARC perf
// driver drives them: PCT_BUILD says how many counters and how wide, CC_BUILD how many countable
// conditions, whose names (8 characters in CC_NAME0/CC_NAME1 after CC_INDEX) differ in index from
// core to core, so conditions are always chosen by name. A counter is chosen with PCT_INDEX, given
// its condition (and the count-in-user / count-in-kernel bits 18 and 19) in PCT_CONFIG and its
// start value in PCT_COUNTL/H; PCT_CONTROL bit 0 runs them all, bit 17 copies the chosen one into
// PCT_SNAPL/H so that it is read without tearing. Its bit 16 clears every counter, but no journal
// could give the counts back: counters are cleared one by one instead.
//
// Every write is journalled by the aux back end, so undoing the journal (detach, `ppe-arc restore`)
// puts the PCT back as it was found.
#pragma once

#include "ppe/arc/aux_registers.h"
#include "ppe/arc/core_profile.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::arc {

struct PctBuild {
    unsigned version = 0; // 0: the core has no PCT
    unsigned counters = 0;
    unsigned counterBits = 32; // 32 + 16 * the size field
    bool interrupts = false;
    uint32_t bits = 0; // PCT_BUILD as read (a core profile may name it)
};

struct CountableCondition {
    uint32_t index = 0;
    std::string name;
};

// Which privilege levels a counter counts in.
enum class CountIn { Both, User, Kernel };

class Pct {
public:
    // Reads the build registers and the condition names; an error where the core has no PCT.
    static Result<Pct> open(AuxRegisters& registers);

    const PctBuild& build() const { return m_build; }
    const std::vector<CountableCondition>& conditions() const { return m_conditions; }
    // The condition named `name` (as the core spells it; any case), or an error listing none of the
    // names (they are many): "no countable condition 'x' (ppe-arc conditions lists them)".
    Result<uint32_t> condition(std::string_view name) const;

    // Counter `counter` counts `condition` from 0 (the counters must be stopped).
    gdbremote::Status configure(unsigned counter, uint32_t condition, CountIn where = CountIn::Both);
    // Counter `counter` (configured) counts only at PCs from `low` to `high`, both counted: PCT_RANGEL/H
    // and the enable bit `profile` names, set and read back. An error, naming the bit and the
    // profile's core, when the core does not keep the bit (it has none there, or not this one).
    gdbremote::Status limitToRange(unsigned counter, uint32_t low, uint32_t high, const CoreProfile& profile);
    // Counter `counter` counts nothing (condition 0 is "never" on every core).
    gdbremote::Status disable(unsigned counter);
    gdbremote::Status start();
    gdbremote::Status stop();
    gdbremote::Status clear(); // every counter to 0
    // Counter `counter`'s value through the snapshot (never torn), within the counter's width.
    Result<uint64_t> read(unsigned counter);

private:
    explicit Pct(AuxRegisters& registers)
        : m_aux(&registers)
    {
    }
    gdbremote::Status select(unsigned counter);
    gdbremote::Status setControl(uint32_t keep, uint32_t bits);
    Result<std::vector<CountableCondition>> readConditions(unsigned count);

    AuxRegisters* m_aux;
    PctBuild m_build;
    std::vector<CountableCondition> m_conditions;
};

// A condition name from the two CC_NAME words (little-endian characters, NUL- or space-padded).
std::string conditionName(uint32_t name0, uint32_t name1);

} // namespace ppe::arc
