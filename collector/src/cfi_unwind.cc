#include "cfi_unwind.h"

#include <string.h> // C headers only: the cross-built test of AArch64 has no C++ library (test/unit/collector)

namespace ppe {

namespace {

    bool registerValue(const FrameRegisters& regs, uint64_t reg, uint64_t* value)
    {
        if (reg == kDwarfSp)
            *value = regs.sp;
        else if (reg == kDwarfFp)
            *value = regs.fp;
        else if (reg == kDwarfPc)
            *value = regs.pc;
        else if (reg == kDwarfLr && regs.lrValid)
            *value = regs.lr;
        else
            return false;
        return true;
    }

    // A DWARF expression's bytes and operand stack (the CFA's: at most kMaxCfaExpression bytes).
    struct Expression {
        const uint8_t* bytes = nullptr;
        size_t size = 0, at = 0;
        uint64_t values[8] {};
        int depth = 0;

        bool more() const { return at < size; }
        uint8_t op() { return bytes[at++]; }
        uint64_t fixed(int count)
        {
            uint64_t v = 0;
            for (int i = 0; i < count && at < size; ++i)
                v |= uint64_t(bytes[at++]) << (8 * i);
            return v;
        }
        uint64_t leb(bool isSigned)
        {
            uint64_t v = 0;
            int shift = 0;
            uint8_t b = 0x80;
            for (; at < size && (b & 0x80) && shift < 64; shift += 7) {
                b = bytes[at++];
                v |= uint64_t(b & 0x7f) << shift;
            }
            if (isSigned && (b & 0x40) && shift < 64)
                v |= ~uint64_t(0) << shift;
            return v;
        }
        bool push(uint64_t v)
        {
            if (depth == 8)
                return false;
            values[depth++] = v;
            return true;
        }
    };

    // The two-operand operators a CFA expression uses.
    bool binary(uint8_t op, uint64_t a, uint64_t b, uint64_t* value)
    {
        switch (op) {
        case 0x1a:
            *value = a & b;
            return true; // and
        case 0x1c:
            *value = a - b;
            return true; // minus
        case 0x22:
            *value = a + b;
            return true; // plus
        case 0x24:
            *value = b < 64 ? a << b : 0;
            return true; // shl
        case 0x2a:
            *value = int64_t(a) >= int64_t(b);
            return true; // ge
        default:
            return false;
        }
    }

    // One operation; false on one not known, or a stack that does not hold its operands.
    bool evaluateOne(Expression& e, const MemoryReader& stack, const FrameRegisters& regs)
    {
        const uint8_t op = e.op();
        uint64_t value = 0;
        if (op >= 0x70 && op <= 0x8f) // breg0..31
            return registerValue(regs, op - 0x70, &value) && e.push(value + e.leb(true));
        if (op >= 0x30 && op <= 0x4f) // lit0..31
            return e.push(op - 0x30);
        if (op == 0x08 || op == 0x0a || op == 0x0c) // const1u, const2u, const4u
            return e.push(e.fixed(op == 0x08 ? 1 : op == 0x0a ? 2 : 4));
        if (e.depth < 1)
            return false;
        uint64_t& top = e.values[e.depth - 1];
        if (op == 0x23) { // plus_uconst
            top += e.leb(false);
            return true;
        }
        if (op == 0x06) // deref
            return stack(top, &top, sizeof(top));
        if (e.depth < 2 || !binary(op, e.values[e.depth - 2], top, &value))
            return false;
        e.values[--e.depth - 1] = value;
        return true;
    }

    // The DWARF expressions compilers give a CFA (the PLT's: rsp + 8, + 8 more past the push).
    bool evaluateCfa(const FrameRule& rule, const MemoryReader& stack, const FrameRegisters& regs, uint64_t* cfa)
    {
        Expression e;
        e.bytes = rule.cfaExpression;
        e.size = rule.cfaExpressionSize;
        while (e.more()) {
            if (!evaluateOne(e, stack, regs))
                return false;
        }
        if (e.depth != 1)
            return false;
        *cfa = e.values[0];
        return true;
    }

    // The caller's value of a register by its rule; false where it cannot be had.
    bool callerValue(const RegisterRule& r, uint64_t cfa, uint64_t current, const MemoryReader& stack,
        const FrameRegisters& regs, uint64_t* value)
    {
        switch (r.kind) {
        case RegisterRule::Kind::Undefined:
            *value = 0;
            return true;
        case RegisterRule::Kind::Same:
            *value = current;
            return true;
        case RegisterRule::Kind::Offset:
            return stack(cfa + uint64_t(r.value), value, sizeof(*value));
        case RegisterRule::Kind::ValOffset:
            *value = cfa + uint64_t(r.value);
            return true;
        case RegisterRule::Kind::Register:
            return registerValue(regs, uint64_t(r.value), value);
        }
        return false;
    }

} // namespace

bool stepFrame(const FrameRule& rule, const MemoryReader& stack, FrameRegisters* regs, UnwindEnd* why)
{
    *why = UnwindEnd::Unsupported;
    uint64_t cfa = 0;
    if (rule.signalFrame)
        return false;
    if (rule.cfaExpressionSize ? !evaluateCfa(rule, stack, *regs, &cfa) : !registerValue(*regs, rule.cfaRegister, &cfa))
        return false;
    if (!rule.cfaExpressionSize)
        cfa += uint64_t(rule.cfaOffset);
    if (rule.returnAddress.kind == RegisterRule::Kind::Undefined) {
        *why = UnwindEnd::Outermost;
        return false;
    }
    if (rule.returnAddress.kind == RegisterRule::Kind::Same && !regs->lrValid)
        return false; // Unsupported: only the sampled frame's return address can still be in a register
    uint64_t ra = 0, fp = 0;
    const uint64_t leafRa = regs->lrValid ? regs->lr : 0;
    *why = UnwindEnd::Unreadable;
    if (!callerValue(rule.returnAddress, cfa, leafRa, stack, *regs, &ra)
        || !callerValue(rule.framePointer, cfa, regs->fp, stack, *regs, &fp))
        return false;
    // The caller's frame is above this one; only the sampled frame (a leaf that has not moved the
    // stack pointer) may share its stack pointer. Every path therefore ends.
    *why = UnwindEnd::NoProgress;
    if (cfa < regs->sp || (cfa == regs->sp && !regs->lrValid))
        return false;
#if defined(__aarch64__)
    ra &= (uint64_t(1) << 48) - 1; // a pointer-authentication code or tag above the address
#endif
    if (!ra) {
        *why = UnwindEnd::Outermost;
        return false;
    }
    *regs = FrameRegisters { ra, cfa, fp, ra, false };
    return true;
}

UnwindResult unwindPath(
    const RuleSource& rules, const MemoryReader& stack, FrameRegisters regs, uint64_t* pcs, size_t capacity)
{
    UnwindResult result;
    if (!capacity)
        return result;
    pcs[result.frames++] = regs.pc;
    for (bool caller = false; result.frames < capacity; caller = true) {
        FrameRule rule;
        if (!rules.find(rules.context, regs.pc, caller, &rule, &result.end)
            || !stepFrame(rule, stack, &regs, &result.end))
            return result;
        pcs[result.frames++] = regs.pc;
    }
    result.end = UnwindEnd::Full;
    return result;
}

namespace {

    struct TableRules {
        const ObjectLookup& objects;
        const MemoryReader& code;
    };

    bool findInTables(const void* context, uint64_t pc, bool caller, FrameRule* rule, UnwindEnd* why)
    {
        const auto* t = static_cast<const TableRules*>(context);
        const uint64_t hdr = t->objects.ehFrameHdr(t->objects.context, caller ? pc - 1 : pc);
        *why = UnwindEnd::NoObject;
        return hdr && findFrameRule(t->code, hdr, pc, caller, rule, why);
    }

} // namespace

UnwindResult unwindPath(const ObjectLookup& objects, const MemoryReader& code, const MemoryReader& stack,
    FrameRegisters regs, uint64_t* pcs, size_t capacity)
{
    const TableRules tables { objects, code };
    return unwindPath(RuleSource { findInTables, &tables }, stack, regs, pcs, capacity);
}

} // namespace ppe
