// ARC trampolines (trampoline.h). The encodings follow GNU binutils' opcodes/arc-tbl.h; each form
// is checked by disassembling what is built with arc-linux-gnu-objdump
// (test/unit/arc/trampoline_test.cc).
#include "ppe/arc/trampoline.h"

#include <map>
#include <string>

namespace ppe::arc {

namespace encode {

    namespace {
        constexpr unsigned kLimm = 62;
        constexpr unsigned kSp = 28;

        // Major 4, the general ALU format: op a,b,c (p 0), op b,b,u6 (p 1), op b,b,s12 (p 2).
        uint32_t alu(unsigned b, unsigned p, unsigned op, unsigned c, unsigned a)
        {
            return 0x20000000u | (b & 7) << 24 | p << 22 | op << 16 | (b >> 3) << 12 | (c & 63) << 6 | (a & 63);
        }

        // Major 2, ld a,[b,s9] with address write-back mode aa.
        uint32_t load(unsigned a, unsigned b, int s9, unsigned aa)
        {
            const uint32_t s = uint32_t(s9) & 0x1ff;
            return 0x10000000u | (b & 7) << 24 | (s & 0xff) << 16 | (s >> 8) << 15 | (b >> 3) << 12 | aa << 9 | a;
        }

        // Major 3, st c,[b,s9] with mode aa.
        uint32_t store(unsigned c, unsigned b, int s9, unsigned aa)
        {
            const uint32_t s = uint32_t(s9) & 0x1ff;
            return 0x18000000u | (b & 7) << 24 | (s & 0xff) << 16 | (s >> 8) << 15 | (b >> 3) << 12 | c << 6 | aa << 3;
        }

        uint32_t pclOffset(uint32_t at, uint32_t to) { return to - (at & ~3u); }
    } // namespace

    void word32(std::vector<uint8_t>& out, uint32_t word)
    {
        for (uint32_t half : { word >> 16, word & 0xffff }) {
            out.push_back(uint8_t(half));
            out.push_back(uint8_t(half >> 8));
        }
    }

    void limm(std::vector<uint8_t>& out, uint32_t value) { word32(out, value); }
    void pushReg(std::vector<uint8_t>& out, unsigned reg) { word32(out, store(reg, kSp, -4, 1)); }
    void popReg(std::vector<uint8_t>& out, unsigned reg) { word32(out, load(reg, kSp, 4, 2)); }

    void loadAbs(std::vector<uint8_t>& out, unsigned reg, uint32_t address)
    {
        word32(out, load(reg, kLimm, 0, 0));
        limm(out, address);
    }

    void storeAbs(std::vector<uint8_t>& out, unsigned reg, uint32_t address)
    {
        word32(out, store(reg, kLimm, 0, 0));
        limm(out, address);
    }

    void addImm(std::vector<uint8_t>& out, unsigned reg, unsigned u6) { word32(out, alu(reg, 1, 0x00, u6, reg)); }
    void subImm(std::vector<uint8_t>& out, unsigned reg, unsigned u6) { word32(out, alu(reg, 1, 0x02, u6, reg)); }
    void movImm(std::vector<uint8_t>& out, unsigned reg, unsigned u6) { word32(out, alu(reg, 1, 0x0a, u6, 0)); }

    void movLimm(std::vector<uint8_t>& out, unsigned reg, uint32_t value)
    {
        word32(out, alu(reg, 0, 0x0a, kLimm, 0));
        limm(out, value);
    }

    void add2Limm(std::vector<uint8_t>& out, unsigned a, uint32_t base, unsigned c)
    {
        word32(out, alu(kLimm, 0, 0x15, c, a));
        limm(out, base);
    }

    void storeAt(std::vector<uint8_t>& out, unsigned value, unsigned base) { word32(out, store(value, base, 0, 0)); }
    void loadAt(std::vector<uint8_t>& out, unsigned reg, unsigned base) { word32(out, load(reg, base, 0, 0)); }

    void srAux(std::vector<uint8_t>& out, unsigned reg, uint32_t aux)
    {
        word32(out, alu(reg, 2, 0x2b, aux & 63, (aux >> 6) & 63));
    }

    void lrReg(std::vector<uint8_t>& out, unsigned b, unsigned c) { word32(out, alu(b, 0, 0x2a, c, 0)); }
    void srReg(std::vector<uint8_t>& out, unsigned b, unsigned c) { word32(out, alu(b, 0, 0x2b, c, 0)); }

    void jumpAbs(std::vector<uint8_t>& out, uint32_t target)
    {
        word32(out, alu(0, 0, 0x20, kLimm, 0));
        limm(out, target);
    }

    void jumpReg(std::vector<uint8_t>& out, unsigned reg) { word32(out, alu(0, 0, 0x20, reg, 0)); }

    void branch(std::vector<uint8_t>& out, uint32_t at, uint32_t to)
    {
        const uint32_t o = pclOffset(at, to);
        word32(out, (o >> 1 & 0x3ff) << 17 | 1u << 16 | (o >> 11 & 0x3ff) << 6 | (o >> 21 & 0xf));
    }

    namespace {
        uint32_t compare(unsigned cc, unsigned b, unsigned c, bool u6, uint32_t at, uint32_t to)
        {
            const uint32_t o = pclOffset(at, to);
            return 0x08000000u | (b & 7) << 24 | (o >> 1 & 0x7f) << 17 | 1u << 16 | (o >> 8 & 1) << 15 | (b >> 3) << 12
                | (c & 63) << 6 | unsigned(u6) << 4 | cc;
        }
    } // namespace

    void branchCompare(std::vector<uint8_t>& out, unsigned cc, unsigned b, unsigned c, uint32_t at, uint32_t to)
    {
        word32(out, compare(cc, b, c, false, at, to));
    }

    void branchCompareU6(std::vector<uint8_t>& out, unsigned cc, unsigned b, unsigned u6, uint32_t at, uint32_t to)
    {
        word32(out, compare(cc, b, u6, true, at, to));
    }

    void branchCompareLimm(std::vector<uint8_t>& out, unsigned cc, unsigned b, uint32_t value, uint32_t at, uint32_t to)
    {
        word32(out, compare(cc, b, kLimm, false, at, to));
        limm(out, value);
    }

} // namespace encode

namespace {

    constexpr unsigned kR11 = 11, kR12 = 12, kBlink = 31;
    constexpr unsigned kNe = 1, kHs = 5;

    // The code being laid out at `base`: the address of the next byte, and labels whose addresses
    // the first pass finds and the second uses (every form has one size whatever its target).
    struct Emitter {
        uint32_t base;
        std::vector<uint8_t> out;
        std::map<std::string, uint32_t>& labels;
        uint32_t here() const { return base + uint32_t(out.size()); }
        void mark(const std::string& name) { labels[name] = here(); }
        uint32_t at(const std::string& name) const
        {
            auto found = labels.find(name);
            return found == labels.end() ? here() : found->second;
        }
        void increment(uint32_t address)
        {
            encode::loadAbs(out, kR12, address);
            encode::addImm(out, kR12, 1);
            encode::storeAbs(out, kR12, address);
        }
    };

    // At the outermost entry (r12 the depth before it): PCT_CONTROL = 1, the counters run.
    void startCounters(Emitter& e, uint32_t control)
    {
        encode::branchCompareU6(e.out, kNe, kR12, 0, e.here(), e.at("started"));
        encode::movImm(e.out, kR11, 1);
        encode::srAux(e.out, kR11, control);
        e.mark("started");
    }

    void entryPath(Emitter& e, const TrampolineRequest& r, uint32_t exitStub)
    {
        const uint32_t d = r.data;
        encode::pushReg(e.out, kR12);
        encode::pushReg(e.out, kR11);
        e.increment(d + hook::kCalls);
        encode::loadAbs(e.out, kR12, d + hook::kDepth);
        encode::branchCompareLimm(e.out, kHs, kR12, r.capacity, e.here(), e.at("overflow"));
        encode::add2Limm(e.out, kR11, d + hook::kStack, kR12);
        encode::storeAt(e.out, kBlink, kR11);
        if (r.action == HookAction::Pct)
            startCounters(e, r.control);
        encode::addImm(e.out, kR12, 1);
        encode::storeAbs(e.out, kR12, d + hook::kDepth);
        encode::loadAbs(e.out, kR11, d + hook::kMaxDepth);
        encode::branchCompare(e.out, kHs, kR11, kR12, e.here(), e.at("deepest"));
        encode::storeAbs(e.out, kR12, d + hook::kMaxDepth);
        e.mark("deepest");
        encode::movLimm(e.out, kBlink, exitStub);
        encode::branch(e.out, e.here(), e.at("pop"));
        e.mark("overflow");
        e.increment(d + hook::kOverflow);
        e.mark("pop");
        encode::popReg(e.out, kR11);
        encode::popReg(e.out, kR12);
        e.out.insert(e.out.end(), r.original.begin(), r.original.end());
        encode::jumpAbs(e.out, r.entry + r.site.size);
    }

    // At a hooked return: r0-r7 hold the result, `blink` is free (it held the stub's address).
    void exitPath(Emitter& e, const TrampolineRequest& r)
    {
        const uint32_t d = r.data;
        e.mark("exit");
        encode::pushReg(e.out, kR12);
        e.increment(d + hook::kReturns);
        encode::loadAbs(e.out, kR12, d + hook::kDepth);
        encode::subImm(e.out, kR12, 1);
        encode::storeAbs(e.out, kR12, d + hook::kDepth);
        if (r.action == HookAction::Pct) {
            encode::branchCompareU6(e.out, kNe, kR12, 0, e.here(), e.at("running"));
            encode::movImm(e.out, kBlink, 0);
            encode::srAux(e.out, kBlink, r.control);
            e.mark("running");
        }
        encode::add2Limm(e.out, kBlink, d + hook::kStack, kR12);
        encode::loadAt(e.out, kBlink, kBlink);
        encode::popReg(e.out, kR12);
        encode::jumpReg(e.out, kBlink);
    }

} // namespace

uint32_t patchLength(uint32_t from, uint32_t to)
{
    const int64_t offset = int64_t(to) - int64_t(from & ~3u);
    return offset >= -(int64_t(1) << 24) && offset < (int64_t(1) << 24) && (to & 1) == 0 ? 4 : 8;
}

Result<Trampoline> buildTrampoline(const TrampolineRequest& r)
{
    if ((r.code & 1) || (r.data & 3) || (r.entry & 1))
        return Error { "", 0, "a trampoline needs an even code address and a 4-aligned data address" };
    const uint32_t need = patchLength(r.entry, r.code);
    if (r.site.size < need || r.original.size() != r.site.size)
        return Error { "", 0,
            "the patch site holds " + std::to_string(r.site.size) + " bytes, the branch needs "
                + std::to_string(need) };
    std::map<std::string, uint32_t> labels;
    Trampoline t;
    for (int pass = 0; pass < 2; ++pass) {
        Emitter e { r.code, {}, labels };
        entryPath(e, r, labels.count("exit") ? labels["exit"] : r.code);
        exitPath(e, r);
        t.code = std::move(e.out);
    }
    t.exitStub = labels["exit"];
    if (need == 4)
        encode::branch(t.patch, r.entry, r.code);
    else
        encode::jumpAbs(t.patch, r.code);
    while (t.patch.size() < r.site.size)
        t.patch.insert(t.patch.end(), { 0xe0, 0x78 }); // nop_s, never run: the branch is unconditional
    return t;
}

} // namespace ppe::arc
