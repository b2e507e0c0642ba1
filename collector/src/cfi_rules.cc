#include "cfi_unwind.h"

#include <string.h> // C headers only: the cross-built test of AArch64 has no C++ library (test/unit/collector)

namespace ppe {

namespace {

    constexpr uint8_t kOmit = 0xff;
    constexpr int kMaxRememberedRows = 8; // DW_CFA_remember_state nesting (gcc uses one or two)
    constexpr uint64_t kMaxEntryBytes = 1 << 20; // a CIE or FDE longer than this is damage
    constexpr int kMaxAugmentation = 8;

    // Reads bytes in order from [at, end) of the unwound process through a small window: every read
    // bounded by the entry it is in, every value assembled from checked bytes.
    class Cursor {
    public:
        Cursor(const MemoryReader& memory, uint64_t at, uint64_t end)
            : m_memory(memory)
            , m_at(at)
            , m_end(end)
        {
        }

        uint64_t address() const { return m_at; }
        uint64_t end() const { return m_end; }
        bool ok() const { return m_ok; }
        bool atEnd() const { return !m_ok || m_at >= m_end; }
        void fail() { m_ok = false; }

        uint8_t byte()
        {
            if (!m_ok || m_at >= m_end || (!inWindow() && !refill())) {
                m_ok = false;
                return 0;
            }
            return m_window[m_at++ - m_windowStart];
        }

        uint64_t fixed(int bytes)
        {
            uint64_t v = 0;
            for (int i = 0; i < bytes; ++i)
                v |= uint64_t(byte()) << (8 * i);
            return v;
        }

        uint64_t uleb()
        {
            uint64_t v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                const uint8_t b = byte();
                v |= uint64_t(b & 0x7f) << shift;
                if (!(b & 0x80))
                    return v;
            }
            m_ok = false; // longer than 64 bits
            return 0;
        }

        int64_t sleb()
        {
            uint64_t v = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                const uint8_t b = byte();
                v |= uint64_t(b & 0x7f) << shift;
                if (!(b & 0x80)) {
                    if ((b & 0x40) && shift + 7 < 64)
                        v |= ~uint64_t(0) << (shift + 7);
                    return int64_t(v);
                }
            }
            m_ok = false;
            return 0;
        }

        void skip(uint64_t bytes)
        {
            if (bytes > m_end - m_at)
                m_ok = false;
            else
                m_at += bytes;
        }

        // A pointer in DW_EH_PE `encoding` (pc-relative or relative to `dataBase`).
        uint64_t pointer(uint8_t encoding, uint64_t dataBase)
        {
            if (encoding == kOmit)
                return 0;
            const uint64_t at = m_at;
            uint64_t v = 0;
            switch (encoding & 0x0f) {
            case 0x00:
                v = fixed(8);
                break;
            case 0x01:
                v = uleb();
                break;
            case 0x02:
                v = fixed(2);
                break;
            case 0x03:
                v = fixed(4);
                break;
            case 0x04:
                v = fixed(8);
                break;
            case 0x09:
                v = uint64_t(sleb());
                break;
            case 0x0a:
                v = uint64_t(int64_t(int16_t(fixed(2))));
                break;
            case 0x0b:
                v = uint64_t(int64_t(int32_t(fixed(4))));
                break;
            case 0x0c:
                v = fixed(8);
                break;
            default:
                m_ok = false;
                return 0;
            }
            switch (encoding & 0x70) {
            case 0x00:
                return v;
            case 0x10:
                return v + at;
            case 0x30:
                return v + dataBase;
            default:
                m_ok = false;
                return 0; // text-, function-relative, aligned: not in .eh_frame
            }
        }

    private:
        bool inWindow() const { return m_at >= m_windowStart && m_at < m_windowStart + m_windowSize; }

        // The window from m_at: as much of the entry as fits, else less (the entry may end a mapping).
        bool refill()
        {
            for (uint64_t size = m_end - m_at < sizeof(m_window) ? m_end - m_at : sizeof(m_window); size; size /= 8) {
                if (m_memory(m_at, m_window, size)) {
                    m_windowStart = m_at;
                    m_windowSize = size;
                    return true;
                }
            }
            return false;
        }

        const MemoryReader& m_memory;
        uint64_t m_at, m_end;
        uint64_t m_windowStart = 0, m_windowSize = 0;
        uint8_t m_window[256];
        bool m_ok = true;
    };

    // The contents of the CIE or FDE at `address`, after its length: [*start, *end). An FDE's CIE
    // pointer, its first field, is relative to *start.
    bool entryBounds(const MemoryReader& code, uint64_t address, uint64_t* start, uint64_t* end)
    {
        Cursor header(code, address, address + 12);
        uint64_t length = header.fixed(4);
        if (length == 0xffffffff)
            length = header.fixed(8);
        if (!header.ok() || length < 4 || length > kMaxEntryBytes)
            return false;
        *start = header.address();
        *end = *start + length;
        return true;
    }

    struct Cie {
        uint64_t codeAlign = 1;
        int64_t dataAlign = 1;
        uint64_t returnColumn = 0;
        uint8_t fdeEncoding = 0;
        bool augmented = false; // 'z': FDEs carry augmentation data
        bool signalFrame = false;
        uint64_t instructions = 0, end = 0;
    };

    // The augmentation data after 'z' (P, L, R, S and AArch64's B); false on one not known.
    bool readAugmentation(Cursor& c, const char* augmentation, Cie* cie)
    {
        const uint64_t length = c.uleb();
        const uint64_t end = c.address() + length;
        for (const char* a = augmentation + 1; *a && c.ok(); ++a) {
            if (*a == 'R')
                cie->fdeEncoding = c.byte();
            else if (*a == 'P')
                c.pointer(c.byte() & 0x7f, 0); // the personality routine: its size only
            else if (*a == 'L')
                c.byte();
            else if (*a == 'S')
                cie->signalFrame = true;
            else if (*a != 'B')
                break; // unknown: the length still says where the data ends
        }
        c.skip(end - c.address());
        return c.ok();
    }

    bool readCie(const MemoryReader& code, uint64_t address, Cie* cie)
    {
        uint64_t start = 0, end = 0;
        if (!entryBounds(code, address, &start, &end))
            return false;
        Cursor c(code, start, end);
        if (c.fixed(4) != 0)
            return false;
        const uint8_t version = c.byte();
        char augmentation[kMaxAugmentation + 1] {};
        for (int i = 0;; ++i) {
            const char ch = char(c.byte());
            if (!ch)
                break;
            if (i == kMaxAugmentation || !c.ok())
                return false;
            augmentation[i] = ch;
        }
        if (strstr(augmentation, "eh"))
            c.skip(8);
        cie->codeAlign = c.uleb();
        cie->dataAlign = c.sleb();
        cie->returnColumn = version == 1 ? c.byte() : c.uleb();
        cie->augmented = augmentation[0] == 'z';
        if (cie->augmented && !readAugmentation(c, augmentation, cie))
            return false;
        cie->instructions = c.address();
        cie->end = c.end();
        return c.ok() && (version == 1 || version == 3) && cie->codeAlign;
    }

    // The FDE the .eh_frame_hdr's sorted table gives for `pc` (the last whose start is at or before
    // it), or 0.
    uint64_t searchTable(const MemoryReader& code, uint64_t hdr, uint64_t pc, UnwindEnd* why)
    {
        Cursor c(code, hdr, hdr + 4 + 8 + 8);
        const uint8_t version = c.byte(), framePointerEncoding = c.byte(), countEncoding = c.byte(),
                      tableEncoding = c.byte();
        c.pointer(framePointerEncoding, hdr);
        const uint64_t count = c.pointer(countEncoding, hdr);
        const int entry = (tableEncoding & 0x0f) == 0x03 || (tableEncoding & 0x0f) == 0x0b ? 4 : 0;
        *why = UnwindEnd::Unreadable;
        if (!c.ok() || version != 1)
            return 0;
        *why = UnwindEnd::Unsupported;
        if (!entry || (tableEncoding & 0x70) != 0x30 || countEncoding == kOmit)
            return 0; // no table to search (a linker writes one of 4-byte datarel entries)
        const uint64_t table = c.address();
        uint64_t low = 0, high = count, fde = 0;
        while (low < high) { // the last entry whose start <= pc
            const uint64_t middle = low + (high - low) / 2;
            Cursor e(code, table + middle * 2 * entry, table + (middle + 1) * 2 * entry);
            const uint64_t start = e.pointer(tableEncoding, hdr), address = e.pointer(tableEncoding, hdr);
            if (!e.ok()) {
                *why = UnwindEnd::Unreadable;
                return 0;
            }
            if (start <= pc)
                low = middle + 1, fde = address;
            else
                high = middle;
        }
        *why = UnwindEnd::NoCfi;
        return fde;
    }

    // The rows so far, and what DW_CFA_remember_state kept.
    struct CfaProgram {
        FrameRule row;
        FrameRule initial; // after the CIE's instructions: DW_CFA_restore's rules
        FrameRule remembered[kMaxRememberedRows];
        int depth = 0;
        uint64_t location = 0, target = 0;
        uint64_t returnColumn = 0;
        bool unsupported = false;
    };

    RegisterRule* ruleOf(CfaProgram& p, FrameRule& row, uint64_t reg)
    {
        if (reg == p.returnColumn)
            return &row.returnAddress;
        return reg == kDwarfFp ? &row.framePointer : nullptr;
    }

    void setRule(CfaProgram& p, uint64_t reg, RegisterRule::Kind kind, int64_t value)
    {
        if (RegisterRule* r = ruleOf(p, p.row, reg))
            *r = RegisterRule { kind, value };
    }

    void restoreRule(CfaProgram& p, uint64_t reg)
    {
        if (RegisterRule* r = ruleOf(p, p.row, reg))
            *r = *ruleOf(p, p.initial, reg);
    }

    // DW_CFA_expression/val_expression on a register the unwind follows: not followed.
    void expressionRule(CfaProgram& p, Cursor& c)
    {
        const uint64_t reg = c.uleb();
        c.skip(c.uleb());
        if (ruleOf(p, p.row, reg))
            p.unsupported = true;
    }

    void defineCfaExpression(CfaProgram& p, Cursor& c)
    {
        const uint64_t size = c.uleb();
        if (size == 0 || size > kMaxCfaExpression) {
            p.unsupported = true;
            c.skip(size);
            return;
        }
        for (uint64_t i = 0; i < size; ++i)
            p.row.cfaExpression[i] = c.byte();
        p.row.cfaExpressionSize = uint8_t(size);
    }

    // An offset factor times the data alignment, wrapping as the address arithmetic that uses it
    // does (damaged CFI must not overflow a signed multiply).
    int64_t scaled(uint64_t factor, int64_t align) { return int64_t(factor * uint64_t(align)); }

    // False once the location passes the target: the row is complete.
    bool advance(CfaProgram& p, uint64_t delta, const Cie& cie)
    {
        const uint64_t next = p.location + delta * cie.codeAlign;
        if (next > p.target)
            return false;
        p.location = next;
        return true;
    }

    // The opcodes that set a register's rule.
    bool runRegisterRule(CfaProgram& p, Cursor& c, uint8_t op, int64_t align)
    {
        using K = RegisterRule::Kind;
        const uint64_t reg = c.uleb();
        switch (op) {
        case 0x05:
            setRule(p, reg, K::Offset, scaled(c.uleb(), align));
            return true;
        case 0x06:
            restoreRule(p, reg);
            return true;
        case 0x07:
            setRule(p, reg, K::Undefined, 0);
            return true;
        case 0x08:
            setRule(p, reg, K::Same, 0);
            return true;
        case 0x09:
            setRule(p, reg, K::Register, int64_t(c.uleb()));
            return true;
        case 0x11:
            setRule(p, reg, K::Offset, scaled(uint64_t(c.sleb()), align));
            return true;
        case 0x14:
            setRule(p, reg, K::ValOffset, scaled(c.uleb(), align));
            return true;
        case 0x15:
            setRule(p, reg, K::ValOffset, scaled(uint64_t(c.sleb()), align));
            return true;
        case 0x2f:
            setRule(p, reg, K::Offset, scaled(0 - c.uleb(), align));
            return true; // GNU_negative_offset
        default:
            c.fail();
            return false;
        }
    }

    // The opcodes that set the CFA's rule, or keep and restore the whole row.
    void runCfaRule(CfaProgram& p, Cursor& c, uint8_t op, int64_t align)
    {
        if (op == 0x0a) { // remember_state
            if (p.depth == kMaxRememberedRows)
                c.fail();
            else
                p.remembered[p.depth++] = p.row;
        } else if (op == 0x0b) { // restore_state
            if (p.depth == 0)
                c.fail();
            else
                p.row = p.remembered[--p.depth];
        } else if (op == 0x0f) {
            defineCfaExpression(p, c);
        } else {
            if (op == 0x0c || op == 0x0d || op == 0x12) {
                p.row.cfaRegister = uint32_t(c.uleb());
                p.row.cfaExpressionSize = 0;
            }
            if (op == 0x0c || op == 0x0e)
                p.row.cfaOffset = int64_t(c.uleb());
            else if (op == 0x12 || op == 0x13)
                p.row.cfaOffset = scaled(uint64_t(c.sleb()), align);
        }
    }

    // The extended opcodes (the low six bits zero); false when the row is complete.
    bool runExtended(CfaProgram& p, Cursor& c, uint8_t op, const Cie& cie)
    {
        switch (op) {
        case 0x00:
            return true; // nop
        case 0x01: { // set_loc
            const uint64_t to = c.pointer(cie.fdeEncoding, 0);
            return to >= p.location && advance(p, (to - p.location) / cie.codeAlign, cie);
        }
        case 0x02:
            return advance(p, c.fixed(1), cie);
        case 0x03:
            return advance(p, c.fixed(2), cie);
        case 0x04:
            return advance(p, c.fixed(4), cie);
        case 0x0a:
        case 0x0b:
        case 0x0c:
        case 0x0d:
        case 0x0e:
        case 0x0f:
        case 0x12:
        case 0x13:
            runCfaRule(p, c, op, cie.dataAlign);
            return true;
        case 0x10:
        case 0x16:
            expressionRule(p, c);
            return true;
        case 0x2d:
            return true; // AArch64 negate_ra_state (pointer authentication: not followed)
        case 0x2e:
            c.uleb();
            return true; // GNU_args_size
        default:
            return runRegisterRule(p, c, op, cie.dataAlign);
        }
    }

    // Runs instructions [c, end) up to the row of p.target.
    bool runInstructions(CfaProgram& p, Cursor& c, const Cie& cie)
    {
        while (!c.atEnd()) {
            const uint8_t op = c.byte();
            const uint8_t operand = op & 0x3f;
            bool more = true;
            switch (op & 0xc0) {
            case 0x40:
                more = advance(p, operand, cie);
                break;
            case 0x80:
                setRule(p, operand, RegisterRule::Kind::Offset, scaled(c.uleb(), cie.dataAlign));
                break;
            case 0xc0:
                restoreRule(p, operand);
                break;
            default:
                more = runExtended(p, c, op, cie);
                break;
            }
            if (!more)
                break;
        }
        return c.ok();
    }

} // namespace

bool findFrameRule(
    const MemoryReader& code, uint64_t ehFrameHdr, uint64_t pc, bool caller, FrameRule* rule, UnwindEnd* why)
{
    const uint64_t lookup = caller ? pc - 1 : pc;
    const uint64_t fdeAddress = searchTable(code, ehFrameHdr, lookup, why);
    if (!fdeAddress)
        return false;
    *why = UnwindEnd::Unreadable;
    uint64_t idField = 0, end = 0;
    if (!entryBounds(code, fdeAddress, &idField, &end))
        return false;
    Cursor fde(code, idField, end);
    const uint64_t ciePointer = fde.fixed(4);
    Cie cie;
    if (!fde.ok() || !ciePointer || ciePointer > idField || !readCie(code, idField - ciePointer, &cie))
        return false;
    const uint64_t start = fde.pointer(cie.fdeEncoding, 0);
    const uint64_t range = fde.pointer(cie.fdeEncoding & 0x0f, 0);
    if (cie.augmented)
        fde.skip(fde.uleb());
    if (!fde.ok())
        return false;
    *why = UnwindEnd::NoCfi;
    if (lookup < start || lookup - start >= range)
        return false; // in a gap between the table's functions
    CfaProgram p;
    p.returnColumn = cie.returnColumn;
    p.location = start;
    p.target = lookup;
    // Before the CIE's rules: the return address in the link register (AArch64's leaves say no
    // more); an x86-64 CIE always gives its own rule.
    p.row.returnAddress.kind = RegisterRule::Kind::Same;
    Cursor initial(code, cie.instructions, cie.end);
    const uint64_t keep = p.target;
    p.target = ~uint64_t(0); // the CIE's instructions all apply
    *why = UnwindEnd::Unreadable;
    if (!runInstructions(p, initial, cie))
        return false;
    p.target = keep;
    p.location = start;
    p.initial = p.row;
    if (!runInstructions(p, fde, cie))
        return false;
    *why = UnwindEnd::Unsupported;
    if (p.unsupported)
        return false;
    *rule = p.row;
    rule->signalFrame = cie.signalFrame;
    return true;
}

} // namespace ppe
