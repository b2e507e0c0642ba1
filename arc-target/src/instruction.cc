// ARCv2 instruction decoding (instruction.h). Field layouts from the ARCv2 programmer's reference
// and GNU binutils' opcode table; each rule is checked against arc-linux-gnu-objdump by
// test/unit/arc/instruction_test.cc.
#include "ppe/arc/instruction.h"

#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ppe::arc {
namespace {

    constexpr unsigned kLimmRegister = 62; // a register field naming r62: a limm follows
    constexpr unsigned kPclRegister = 63;
    constexpr unsigned kBlinkRegister = 31;
    constexpr unsigned kLimmRegisterShort = 30; // the same in the 5-bit `h` field of 16-bit forms

    constexpr uint32_t bits(uint32_t word, unsigned high, unsigned low)
    {
        return (word >> low) & ((1u << (high - low + 1)) - 1);
    }

    constexpr bool bit(uint32_t word, unsigned n) { return (word >> n) & 1; }

    constexpr int64_t signExtend(uint32_t value, unsigned width)
    {
        const uint32_t sign = 1u << (width - 1);
        return static_cast<int64_t>(value ^ sign) - static_cast<int64_t>(sign);
    }

    uint16_t halfword(std::span<const uint8_t> bytes, size_t offset)
    {
        return static_cast<uint16_t>(bytes[offset] | bytes[offset + 1] << 8);
    }

    // ARC addresses are 32-bit: PCL-relative sums wrap there.
    void setRelativeTarget(Instruction& in, int64_t offset)
    {
        in.hasTarget = true;
        in.target = ((in.address & ~uint64_t(3)) + static_cast<uint64_t>(offset)) & 0xffffffffu;
        in.pcRelative = true;
        in.transfersControl = true;
    }

    void setAbsoluteTarget(Instruction& in, uint64_t target)
    {
        in.hasTarget = true;
        in.target = target & 0xffffffffu;
    }

    // ---- 32-bit forms (majors 0-7) ----

    struct Fields {
        uint32_t w;
        unsigned major, b, c, a, p, sub;
    };

    Fields fieldsOf(uint32_t w)
    {
        return { w, bits(w, 31, 27), bits(w, 26, 24) | bits(w, 14, 12) << 3, bits(w, 11, 6), bits(w, 5, 0),
            bits(w, 23, 22), bits(w, 21, 16) };
    }

    // Major 0: b<cc> s21 (bit 16 clear) and b s25, halfword offsets from PCL.
    bool decodeBranch(const Fields& f, Instruction& in)
    {
        uint32_t offset = bits(f.w, 26, 17) << 1 | bits(f.w, 15, 6) << 11;
        unsigned width = 21;
        if (bit(f.w, 16)) {
            offset |= bits(f.w, 3, 0) << 21;
            width = 25;
        } else {
            in.conditional = bits(f.w, 4, 0) != 0;
        }
        setRelativeTarget(in, signExtend(offset, width));
        in.delaySlot = bit(f.w, 5);
        return false;
    }

    // Major 1: bl<cc> s21 / bl s25 (bit 16 clear, word offsets), else br<cc> and bbit0/1 with a 9-bit
    // halfword offset, comparing b with c (bit 4 clear) or with u6.
    bool decodeBranchLinkOrCompare(const Fields& f, Instruction& in)
    {
        in.delaySlot = bit(f.w, 5);
        if (!bit(f.w, 16)) {
            uint32_t offset = bits(f.w, 26, 18) << 2 | bits(f.w, 15, 6) << 11;
            unsigned width = 21;
            if (bit(f.w, 17)) {
                offset |= bits(f.w, 3, 0) << 21;
                width = 25;
            } else {
                in.conditional = bits(f.w, 4, 0) != 0;
            }
            setRelativeTarget(in, signExtend(offset, width));
            in.call = true;
            return false;
        }
        const uint32_t offset = bits(f.w, 23, 17) << 1 | bits(f.w, 15, 15) << 8;
        setRelativeTarget(in, signExtend(offset, 9));
        in.conditional = true;
        const bool cIsRegister = !bit(f.w, 4);
        return f.b == kLimmRegister || (cIsRegister && f.c == kLimmRegister);
    }

    // Major 2: ld a,[b,s9]. Major 3: st c,[b,s9], or st w6,[b,s9] with bit 0 set (c a 6-bit immediate).
    bool decodeLoadStore(const Fields& f, Instruction& in)
    {
        const bool store = f.major == 3 && !bit(f.w, 0);
        const bool load = f.major == 2;
        in.pcRelative = f.b == kPclRegister || (store && f.c == kPclRegister) || (load && f.a == kPclRegister);
        return f.b == kLimmRegister || (store && f.c == kLimmRegister);
    }

    bool isJump(const Fields& f) { return f.major == 4 && f.sub >= 0x20 && f.sub <= 0x23; }

    // The jump's destination: c (limm: known), u6 or s12 (absolute), or c/u6 under a condition.
    void decodeJump(const Fields& f, bool cIsRegister, Instruction& in)
    {
        in.transfersControl = true;
        in.delaySlot = f.sub & 1;
        in.call = f.sub >= 0x22;
        if (f.p == 3)
            in.conditional = bits(f.w, 4, 0) != 0;
        if (f.p == 2)
            setAbsoluteTarget(in, static_cast<uint64_t>(signExtend(f.c | f.a << 6, 12)));
        else if (!cIsRegister)
            setAbsoluteTarget(in, f.c);
        else if (f.c == kLimmRegister)
            in.hasTarget = true; // the limm, read after the instruction
        else if (f.c == kBlinkRegister && !in.call)
            in.isReturn = true;
    }

    // lp s13 (p 2, halfword offset from PCL to the loop's end), lp u7 (p 1), lp<cc> u7 (p 3).
    void decodeLoop(const Fields& f, Instruction& in)
    {
        if (f.p == 2) {
            setRelativeTarget(in, signExtend(f.c << 1 | f.a << 7, 13));
            return;
        }
        in.conditional = f.p == 3 && bits(f.w, 4, 0) != 0;
        setRelativeTarget(in, f.c << 1);
    }

    // Major 4's operations that may leave the straight line besides jumps.
    void decodeFlow(const Fields& f, Instruction& in)
    {
        if (f.sub == 0x24 || f.sub == 0x25) { // bi/bih [c]: an index from the next instruction
            in.pcRelative = true;
            in.transfersControl = true;
        } else if (f.sub == 0x28 && f.p != 0) { // lp has no register form
            decodeLoop(f, in);
        } else if ((f.sub == 0x0c || f.sub == 0x0d) && f.p == 2 && !bit(f.w, 15)) { // dbnz b,s13 (not cmp/rcmp)
            setRelativeTarget(in, signExtend(f.c << 1 | f.a << 7, 13));
            in.conditional = true;
            in.delaySlot = f.sub & 1;
        } else if (f.sub == 0x2f && f.a == 0x3f && f.b == 4) { // rtie
            in.transfersControl = true;
        }
    }

    bool isFlowOnly(const Fields& f)
    {
        return f.major == 4 && f.sub >= 0x20 && f.sub <= 0x29 && f.sub != 0x26 && f.sub != 0x27;
    }
    bool isZeroOperand(const Fields& f) { return f.sub == 0x2f && f.a == 0x3f; } // b is a sub-opcode

    // Field a is a destination register (p 0 and 1), except in single-operand ops (their sub-opcode)
    // and in what writes no a: mov b,c, tst, cmp, rcmp, btst, ldi b,[c], aex b,[c], lr, sr.
    bool aIsRegister(const Fields& f, bool load)
    {
        if (load)
            return true;
        if (f.p > 1 || f.sub == 0x2f || isFlowOnly(f))
            return false;
        if (f.major != 4)
            return true;
        switch (f.sub) {
        case 0x0a:
        case 0x0b:
        case 0x0c:
        case 0x0d:
        case 0x11:
        case 0x26:
        case 0x27:
        case 0x2a:
        case 0x2b:
            return false;
        default:
            return true;
        }
    }

    // Whether field b is read (a limm when 62) in the general operations.
    bool readsB(const Fields& f)
    {
        if (isFlowOnly(f) || f.sub == 0x2f) // single-operand ops write b; zero-operand ones have none
            return false;
        return f.major != 4 || (f.sub != 0x0a && f.sub != 0x26 && f.sub != 0x2a); // mov b,c; ldi b,[c]; lr b,[c]
    }

    // Names PCL in a register field, read or written (a write to PCL is not defined: refuse it too).
    bool namesPcl(const Fields& f, bool cIsRegister, bool load)
    {
        const bool bIsRegister = !isFlowOnly(f) && !isZeroOperand(f);
        return (bIsRegister && f.b == kPclRegister) || (cIsRegister && f.c == kPclRegister)
            || (aIsRegister(f, load) && f.a == kPclRegister);
    }

    // Majors 4-7: a,b,c (p 0), a,b,u6 (p 1), b,b,s12 (p 2), b,b,c or b,b,u6 under a condition (p 3);
    // major 4's loads a,[b,c] have their addressing mode where p goes.
    bool decodeGeneral(const Fields& f, Instruction& in)
    {
        const bool load = f.major == 4 && f.sub >= 0x30 && f.sub <= 0x37;
        const bool cIsRegister = load || f.p == 0 || (f.p == 3 && !bit(f.w, 5));
        in.pcRelative = namesPcl(f, cIsRegister, load);
        if (isJump(f))
            decodeJump(f, cIsRegister, in);
        else if (f.major == 4)
            decodeFlow(f, in);
        return ((load || readsB(f)) && f.b == kLimmRegister) || (cIsRegister && f.c == kLimmRegister);
    }

    bool decode32(Instruction& in)
    {
        const Fields f = fieldsOf(in.word);
        switch (f.major) {
        case 0:
            return decodeBranch(f, in);
        case 1:
            return decodeBranchLinkOrCompare(f, in);
        case 2:
        case 3:
            return decodeLoadStore(f, in);
        default:
            return decodeGeneral(f, in);
        }
    }

    // ---- 16-bit forms (majors 8-31) ----

    unsigned hField(uint32_t hw) { return bits(hw, 7, 5) | bits(hw, 1, 0) << 3; }

    // Major 15, sub-opcode 0: j_s/jl_s [b] (.d), and with c 7 the zero-operand ops by b.
    void decodeShortJump(uint32_t hw, Instruction& in)
    {
        const unsigned c = bits(hw, 7, 5);
        const unsigned b = bits(hw, 10, 8);
        if (c <= 3) {
            in.transfersControl = true;
            in.delaySlot = c & 1;
            in.call = c >= 2;
            return;
        }
        if (c != 7 || b < 4)
            return;
        in.transfersControl = true; // jeq_s, jne_s, j_s, j_s.d [blink]
        in.isReturn = true;
        in.conditional = b == 4 || b == 5;
        in.delaySlot = b == 7;
    }

    // Major 30: b_s/beq_s/bne_s s10, b<cc>_s s7 (bits 10..9 = 3, condition in 8..6).
    void decodeShortBranch(uint32_t hw, Instruction& in)
    {
        const unsigned kind = bits(hw, 10, 9);
        in.conditional = kind != 0;
        if (kind == 3)
            setRelativeTarget(in, signExtend(bits(hw, 5, 0) << 1, 7));
        else
            setRelativeTarget(in, signExtend(bits(hw, 8, 0) << 1, 10));
    }

    bool decode16(Instruction& in)
    {
        const uint32_t hw = in.word;
        switch (bits(hw, 15, 11)) {
        case 0x08: // mov_s g,h (bit 2 clear)
            return !bit(hw, 2) && hField(hw) == kLimmRegisterShort;
        case 0x0b: // jli_s u10 (a call through JLI_BASE), ei_s u10 (runs EI_BASE's entry, comes back)
            in.transfersControl = in.pcRelative = true;
            in.call = !bit(hw, 10);
            return false;
        case 0x0e: // add_s, cmp_s, mov_s.ne with h; not mov_s h,s3 (bits 4..2 3), which writes h
            return bits(hw, 4, 2) != 3 && hField(hw) == kLimmRegisterShort;
        case 0x0f:
            if (bits(hw, 4, 0) == 0)
                decodeShortJump(hw, in);
            return false;
        case 0x18: // leave_s (bits 7..5 6, bit 0 clear) with bit 10 set: returns through blink
            if (bits(hw, 7, 5) == 6 && !bit(hw, 0) && bit(hw, 10))
                in.transfersControl = in.isReturn = true;
            return false;
        case 0x1a: // ld_s b,[pcl,u10]
            in.pcRelative = true;
            return false;
        case 0x1d: // breq_s/brne_s b,0,s8
            setRelativeTarget(in, signExtend(bits(hw, 6, 0) << 1, 8));
            in.conditional = true;
            return false;
        case 0x1e:
            decodeShortBranch(hw, in);
            return false;
        case 0x1f: // bl_s s13
            setRelativeTarget(in, signExtend(bits(hw, 10, 0) << 2, 13));
            in.call = true;
            return false;
        default:
            return false;
        }
    }

    bool isShort(uint16_t first) { return (first >> 11) > 7; }

    Error tooShort(const Instruction& in, size_t have, uint32_t need)
    {
        char text[96];
        std::snprintf(text, sizeof text, "instruction at 0x%llx needs %u bytes, %zu given",
            static_cast<unsigned long long>(in.address), need, have);
        return Error { "", 0, text };
    }

    // ---- patch sites ----

    std::string hexAddress(uint64_t address)
    {
        char text[24];
        std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(address));
        return text;
    }

    Error refusal(uint64_t address, const std::string& why)
    {
        return Error { "", 0, "cannot patch at " + hexAddress(address) + ": " + why };
    }

    // The replaced instructions, from `address` until `need` bytes are covered.
    Result<PatchSite> replacedInstructions(
        std::span<const uint8_t> function, uint64_t functionStart, uint64_t address, uint32_t need)
    {
        PatchSite site;
        site.address = address;
        while (site.size < need) {
            const uint64_t at = address + site.size;
            auto in = decodeInstruction(function.subspan(at - functionStart), at);
            if (!in)
                return refusal(address, "the function ends before " + std::to_string(need) + " bytes");
            if (in->pcRelative || in->transfersControl)
                return refusal(address,
                    "the instruction at " + hexAddress(at)
                        + (in->transfersControl ? " transfers control" : " is PC-relative"));
            site.size += in->size;
            site.moved.push_back(*in);
        }
        return site;
    }

    // The function walked from its start: whether an instruction starts at `address` and whether it is
    // the delay slot of the one before; every static target, with the address of what goes there.
    struct Walk {
        bool landed = false;
        bool inDelaySlot = false;
        std::vector<std::pair<uint64_t, uint64_t>> targets; // (instruction, target)
    };

    Walk walkFunction(std::span<const uint8_t> function, uint64_t functionStart, uint64_t address)
    {
        Walk walk;
        bool previousHasDelaySlot = false;
        for (uint64_t at = functionStart; at < functionStart + function.size();) {
            auto in = decodeInstruction(function.subspan(at - functionStart), at);
            if (!in)
                break; // a partial last instruction: every complete one has been seen
            if (at == address) {
                walk.landed = true;
                walk.inDelaySlot = previousHasDelaySlot;
            }
            if (in->hasTarget)
                walk.targets.emplace_back(at, in->target);
            previousHasDelaySlot = in->delaySlot;
            at += in->size;
        }
        return walk;
    }

} // namespace

Result<Instruction> decodeInstruction(std::span<const uint8_t> bytes, uint64_t address)
{
    Instruction in;
    in.address = address;
    if (bytes.size() < 2)
        return tooShort(in, bytes.size(), 2);
    const uint16_t first = halfword(bytes, 0);
    in.size = isShort(first) ? 2 : 4;
    if (bytes.size() < in.size)
        return tooShort(in, bytes.size(), in.size);
    in.word = in.size == 2 ? first : uint32_t(first) << 16 | halfword(bytes, 2);
    in.hasLimm = in.size == 2 ? decode16(in) : decode32(in);
    if (!in.hasLimm)
        return in;
    if (bytes.size() < in.size + 4u)
        return tooShort(in, bytes.size(), in.size + 4);
    in.limm = uint32_t(halfword(bytes, in.size)) << 16 | halfword(bytes, in.size + 2);
    in.size += 4;
    if (in.hasTarget && !in.pcRelative)
        setAbsoluteTarget(in, in.limm); // j/jl limm: the only absolute targets that have a limm
    return in;
}

uint32_t instructionLength(std::span<const uint8_t> bytes)
{
    auto in = decodeInstruction(bytes, 0);
    return in ? in->size : 0;
}

Result<PatchSite> checkPatchSite(
    std::span<const uint8_t> function, uint64_t functionStart, uint64_t address, uint32_t need)
{
    if (address < functionStart || address >= functionStart + function.size())
        return refusal(address, "outside the function at " + hexAddress(functionStart));
    const Walk walk = walkFunction(function, functionStart, address);
    if (!walk.landed)
        return refusal(address, "no instruction starts there, walking from " + hexAddress(functionStart));
    if (walk.inDelaySlot)
        return refusal(address, "it is the delay slot of the instruction before");
    auto site = replacedInstructions(function, functionStart, address, need);
    if (!site)
        return site;
    for (const auto& [from, target] : walk.targets)
        if (target > address && target < address + site->size)
            return refusal(address,
                "the instruction at " + hexAddress(from) + " branches to " + hexAddress(target)
                    + ", inside the replaced bytes");
    return site;
}

} // namespace ppe::arc
