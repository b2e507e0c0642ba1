#include "cfi_cache.h"

#include <elf.h>
#include <link.h>
#include <string.h>

namespace ppe {

namespace {

    // The run-time address of the .eh_frame_hdr of the ELF object whose header is at `base` (its
    // mapping at file offset 0); 0 when it has none or its headers cannot be read.
    uint64_t ehFrameHdrOfObject(const MemoryReader& code, uint64_t base)
    {
        ElfW(Ehdr) eh;
        if (!code(base, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0
            || eh.e_phentsize != sizeof(ElfW(Phdr)))
            return 0;
        uint64_t bias = 0, hdr = 0;
        bool biasFound = false;
        for (unsigned i = 0; i < eh.e_phnum; ++i) { // a header at a time: no large buffer on the stack
            ElfW(Phdr) ph;
            if (!code(base + eh.e_phoff + i * sizeof(ph), &ph, sizeof(ph)))
                return 0;
            if (ph.p_type == PT_LOAD && ph.p_offset == 0 && !biasFound) {
                bias = base - ph.p_vaddr;
                biasFound = true;
            }
            if (ph.p_type == PT_GNU_EH_FRAME)
                hdr = ph.p_vaddr;
        }
        return biasFound && hdr ? bias + hdr : 0;
    }

    // The start of the mapping at file offset 0 of `m`'s object: the nearest one below it with
    // its path (objects are mapped in one piece, their header first).
    uint64_t objectBase(const MapsTable& maps, size_t index)
    {
        const Mapping& m = maps.mappings[index];
        for (size_t i = index + 1; i-- > 0;) {
            const Mapping& candidate = maps.mappings[i];
            if (candidate.path != m.path && strcmp(maps.paths + candidate.path, maps.paths + m.path) != 0)
                return 0;
            if (candidate.offset == 0)
                return candidate.start;
        }
        return 0;
    }

    uint64_t keyOf(uint64_t pc, bool caller) { return pc | (caller ? uint64_t(1) << 63 : 0); }

    bool findCached(const void* context, uint64_t pc, bool caller, FrameRule* rule, UnwindEnd* why)
    {
        auto* state = const_cast<UnwindState*>(static_cast<const UnwindState*>(context));
        const uint64_t key = keyOf(pc, caller);
        CachedRule& slot = state->rules[(key * 0x9e3779b97f4a7c15ull) >> 52 & (kCachedRules - 1)];
        if (slot.key == key) {
            ++state->hits;
        } else {
            ++state->misses;
            const uint64_t hdr = ehFrameHdrFor(*state, caller ? pc - 1 : pc);
            slot.key = key;
            slot.why = UnwindEnd::NoObject;
            slot.found = hdr && findFrameRule(state->code, hdr, pc, caller, &slot.rule, &slot.why);
        }
        *rule = slot.rule;
        *why = slot.why;
        return slot.found;
    }

} // namespace

void refreshUnwindObjects(UnwindState& state, const MapsTable& maps)
{
    const size_t before = state.objectCount;
    bool changed = false;
    state.objectCount = 0;
    state.objectsTruncated = maps.truncated;
    for (size_t i = 0; i < maps.mappingCount; ++i) {
        const Mapping& m = maps.mappings[i];
        if (!m.executable || !m.path)
            continue; // anonymous code (JIT) has no tables
        if (state.objectCount == kMaxUnwindObjects) {
            state.objectsTruncated = true;
            break;
        }
        UnwindObject& o = state.objects[state.objectCount++];
        const UnwindObject was = o;
        const uint64_t base = objectBase(maps, i);
        o = UnwindObject { m.start, m.end, base ? ehFrameHdrOfObject(state.code, base) : 0 };
        changed = changed || o.start != was.start || o.end != was.end || o.ehFrameHdr != was.ehFrameHdr;
    }
    // The rows kept stay while every object is where it was (a look for code that is in none, JIT
    // code, must not cost the unwinder its rows).
    if (!changed && state.objectCount == before)
        return;
    forgetUnwindRows(state);
}

void forgetUnwindRows(UnwindState& state)
{
    for (CachedRule& r : state.rules)
        r.key = 0;
}

uint64_t ehFrameHdrFor(const UnwindState& state, uint64_t pc)
{
    size_t low = 0, high = state.objectCount;
    while (low < high) {
        const size_t middle = low + (high - low) / 2;
        if (state.objects[middle].end <= pc)
            low = middle + 1;
        else
            high = middle;
    }
    return low < state.objectCount && state.objects[low].start <= pc ? state.objects[low].ehFrameHdr : 0;
}

RuleSource cachedRules(UnwindState& state) { return RuleSource { findCached, &state }; }

} // namespace ppe
