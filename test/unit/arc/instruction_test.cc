// The ARCv2 instruction decoder (instruction.h) against the real disassembler: every instruction
// arc-linux-gnu-objdump prints in Debian's ARC libc, in insn_mix.c built at -O0, -O2 and -Os with
// the code-density frame, and in random bytes assembled as code, is decoded at its address; its
// length, branch target, call, delay-slot, control-transfer and PC-relative flags must equal what
// objdump printed. Plus hand-made encodings for the rules objdump's text does not show.
#include "ppe/arc/elf_image.h"
#include "ppe/arc/instruction.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace ppe::arc;

namespace {

// One line of `objdump -d`: "   220c8:\t2730 7f8b 000f 3f38 \tld\tr11,[pcl,0xf3f38]\t;116000 <...>".
struct ObjdumpLine {
    uint64_t address = 0;
    unsigned halfwords = 0;
    std::string mnemonic, operands, comment;
};

std::vector<std::string> splitTabs(const std::string& line)
{
    std::vector<std::string> fields;
    std::istringstream in(line);
    for (std::string field; std::getline(in, field, '\t');)
        fields.push_back(field);
    return fields;
}

bool parseLine(const std::string& line, ObjdumpLine& out)
{
    const auto fields = splitTabs(line);
    if (fields.size() < 3 || fields[0].empty() || fields[0].back() != ':')
        return false;
    char* end = nullptr;
    out.address = std::strtoull(fields[0].c_str(), &end, 16);
    if (*end != ':')
        return false;
    std::istringstream hex(fields[1]);
    out.halfwords = static_cast<unsigned>(std::distance(std::istream_iterator<std::string>(hex), {}));
    out.mnemonic = fields[2];
    out.operands = fields.size() > 3 ? fields[3] : "";
    out.comment = fields.size() > 4 ? fields[4] : "";
    return out.halfwords > 0;
}

std::vector<ObjdumpLine> disassemble(const std::string& path)
{
    std::vector<ObjdumpLine> lines;
    const std::string command = std::string(PPE_ARC_OBJDUMP) + " -d -w '" + path + "'";
    FILE* pipe = popen(command.c_str(), "r");
    if (!pipe)
        return lines;
    std::string text;
    char buffer[65536];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;)
        text.append(buffer, n);
    pclose(pipe);
    std::istringstream in(text);
    ObjdumpLine parsed;
    for (std::string line; std::getline(in, line);)
        if (parseLine(line, parsed))
            lines.push_back(parsed);
    return lines;
}

// ---- what objdump's text says ----

bool isCondition(const std::string& s)
{
    static const std::set<std::string> kConditions = { "al", "ra", "eq", "z", "ne", "nz", "p", "pl", "n", "mi", "c",
        "cs", "lo", "nc", "cc", "hs", "v", "vs", "nv", "vc", "gt", "ge", "lt", "le", "hi", "ls", "pnz", "nt", "nj",
        "nm" }; // the last: what objdump calls the extension conditions 0x18-0x1a
    return kConditions.count(s) > 0;
}

std::string baseOf(const std::string& mnemonic) { return mnemonic.substr(0, mnemonic.find('.')); }

bool hasFlag(const std::string& mnemonic, const std::string& flag)
{
    std::istringstream in(mnemonic);
    std::string part;
    std::getline(in, part, '.');
    while (std::getline(in, part, '.'))
        if (part == flag)
            return true;
    return false;
}

// "bl", "bl_s", "bleq" (not "ble", "blo", "bls", "blt": b with le, lo, ls, lt), "jl", "jl_s", "jlne"
// (not "jls", "jle"...: j with ls, le), "jli_s".
bool objdumpCall(const std::string& base)
{
    if (base == "bl" || base == "bl_s" || base == "jl" || base == "jl_s" || base == "jli_s")
        return true;
    if (base.size() < 3 || (base[0] != 'b' && base[0] != 'j') || base[1] != 'l')
        return false;
    return isCondition(base.substr(2)) && !isCondition(base.substr(1));
}

// b, bl, b<cc>, bl<cc>, br<cc>, bbit0/1, their _s forms, lp, lp<cc>, dbnz: what has a relative target.
bool isBranchMnemonic(std::string base)
{
    if (base.size() > 2 && base.substr(base.size() - 2) == "_s")
        base.resize(base.size() - 2);
    if (base == "b" || base == "bl" || base == "lp" || base == "dbnz" || base == "bbit0" || base == "bbit1")
        return true;
    static const std::set<std::string> kCompares = { "eq", "ne", "lt", "ge", "lo", "hs" };
    if (base.rfind("br", 0) == 0 && kCompares.count(base.substr(2)))
        return true;
    if (base.rfind("lp", 0) == 0 && isCondition(base.substr(2)))
        return true;
    return base[0] == 'b' && (isCondition(base.substr(1)) || (base[1] == 'l' && isCondition(base.substr(2))));
}

// objdump prints a relative branch's target as a comment (PCL-relative data gets one too).
bool objdumpBranchComment(const ObjdumpLine& line)
{
    return !line.comment.empty() && line.comment[0] == ';' && isBranchMnemonic(baseOf(line.mnemonic));
}

// enter_s/leave_s name pcl in their register list to mean "and return through blink".
bool isEnterLeave(const std::string& base) { return base == "enter_s" || base == "leave_s"; }

bool objdumpPcRelative(const ObjdumpLine& line)
{
    const std::string base = baseOf(line.mnemonic);
    if (base == "jli_s" || base == "ei_s" || base == "bi" || base == "bih")
        return true;
    if (isEnterLeave(base))
        return false;
    return objdumpBranchComment(line) || line.operands.find("pcl") != std::string::npos;
}

bool objdumpTransfersControl(const ObjdumpLine& line)
{
    const std::string base = baseOf(line.mnemonic);
    if (objdumpBranchComment(line) || base == "ei_s" || base == "bi" || base == "bih" || base == "rtie")
        return true;
    if (base == "leave_s" && line.operands.find("pcl") != std::string::npos)
        return true;
    return !base.empty() && base[0] == 'j'; // j, jl, j<cc>, jl<cc>, j_s, jl_s, jeq_s, jne_s, jli_s
}

// Under a condition: a condition after the name (b<cc>, bl<cc>, j<cc>, jl<cc>, lp<cc>, b<cc>_s,
// jeq_s) or a test in it (br<cc>, bbit0/1, breq_s, brne_s, dbnz). "al" and "ra" are always.
bool objdumpConditional(std::string base)
{
    if (base.size() > 2 && base.substr(base.size() - 2) == "_s")
        base.resize(base.size() - 2);
    if (base.rfind("br", 0) == 0 || base.rfind("bbit", 0) == 0 || base == "dbnz")
        return true;
    for (const std::string prefix : { "bl", "jl", "lp", "b", "j" }) {
        const std::string rest = base.rfind(prefix, 0) == 0 ? base.substr(prefix.size()) : "";
        if (isCondition(rest) && rest != "al" && rest != "ra")
            return true;
    }
    return false;
}

// A 32-bit b<cc>, bl<cc> or j<cc> whose condition is an extension one (0x10-0x1f): objdump names a
// few ("bnt") and prints the rest as if unconditional ("b").
bool extensionCondition(const Instruction& in)
{
    const uint32_t w = in.word, major = w >> 27;
    const bool hasCondition
        = (major == 0 && !(w & 0x10000)) || (major == 1 && !(w & 0x30000)) || (major == 4 && ((w >> 22) & 3) == 3);
    return in.size >= 4 && hasCondition && (w & 0x1f) >= 0x10;
}

bool objdumpReturn(const ObjdumpLine& line)
{
    const std::string base = baseOf(line.mnemonic);
    if (base == "leave_s")
        return line.operands.find("pcl") != std::string::npos;
    return !base.empty() && base[0] == 'j' && !objdumpCall(base) && line.operands == "[blink]";
}

// j/jl with an immediate or a limm: objdump prints the destination itself ("jl 0x12345", "j.d -132").
bool objdumpAbsoluteTarget(const ObjdumpLine& line, uint64_t& target)
{
    const std::string base = baseOf(line.mnemonic);
    if (base.empty() || base[0] != 'j' || base == "jli_s" || line.operands.empty() || line.operands[0] == '[')
        return false;
    target = static_cast<uint64_t>(std::strtoll(line.operands.c_str(), nullptr, 0)) & 0xffffffffu;
    return true;
}

uint64_t commentTarget(const ObjdumpLine& line) { return std::strtoull(line.comment.c_str() + 1, nullptr, 16); }

// ---- the comparison ----

struct Code {
    std::string bytes; // the whole file
    ElfImage elf;
};

struct Tally {
    size_t compared = 0;
    size_t unknown = 0; // .word/.short: no opcode of objdump's matched, so it sized it without a limm
    size_t truncated = 0; // an odd register for a pair: objdump prints the operands up to it
    size_t u6Pcl = 0; // objdumpNamesU6Pcl
    std::vector<std::string> mismatches;
};

void mismatch(Tally& tally, const ObjdumpLine& line, const std::string& what)
{
    if (tally.mismatches.size() < 40) {
        char text[256];
        std::snprintf(text, sizeof text, "%llx: %s %s %s: %s", static_cast<unsigned long long>(line.address),
            line.mnemonic.c_str(), line.operands.c_str(), line.comment.c_str(), what.c_str());
        tally.mismatches.push_back(text);
    } else {
        tally.mismatches.push_back("");
    }
}

// The file's bytes from the address to the end of its segment's file image.
std::span<const uint8_t> bytesAt(const Code& code, uint64_t address)
{
    for (const auto& seg : code.elf.segments)
        if (address >= seg.address && address < seg.address + seg.fileSize) {
            const auto* base = reinterpret_cast<const uint8_t*>(code.bytes.data());
            const uint64_t offset = seg.fileOffset + (address - seg.address);
            return { base + offset, static_cast<size_t>(seg.fileOffset + seg.fileSize - offset) };
        }
    return {};
}

std::string hex(uint32_t value)
{
    char text[16];
    std::snprintf(text, sizeof text, "0x%08x", value);
    return text;
}

void compareFlags(const Instruction& in, const ObjdumpLine& line, Tally& tally)
{
    const size_t before = tally.mismatches.size();
    const std::string base = baseOf(line.mnemonic);
    if (in.pcRelative != objdumpPcRelative(line))
        mismatch(tally, line, in.pcRelative ? "decoded PC-relative" : "not decoded PC-relative");
    if (in.transfersControl != objdumpTransfersControl(line))
        mismatch(tally, line, in.transfersControl ? "decoded a transfer" : "not decoded a transfer");
    if (in.call != objdumpCall(base))
        mismatch(tally, line, in.call ? "decoded a call" : "not decoded a call");
    if (in.delaySlot != hasFlag(line.mnemonic, "d"))
        mismatch(tally, line, in.delaySlot ? "decoded a delay slot" : "no delay slot decoded");
    uint64_t target = 0;
    const bool known
        = objdumpBranchComment(line) ? (target = commentTarget(line), true) : objdumpAbsoluteTarget(line, target);
    if (known && (!in.hasTarget || in.target != target))
        mismatch(tally, line, "target " + (in.hasTarget ? std::to_string(in.target) : std::string("none")));
    if (in.transfersControl && !extensionCondition(in) && in.conditional != objdumpConditional(base))
        mismatch(tally, line, in.conditional ? "decoded conditional" : "not decoded conditional");
    if (in.isReturn != objdumpReturn(line))
        mismatch(tally, line, in.isReturn ? "decoded a return" : "not decoded a return");
    if (tally.mismatches.size() > before && !tally.mismatches.back().empty())
        tally.mismatches.back() += ", word " + hex(in.word);
}

// "r36r37": a register pair.
bool namesPair(const std::string& operands)
{
    for (size_t i = 0; (i = operands.find('r', i)) != std::string::npos; ++i) {
        size_t j = i + 1;
        while (j < operands.size() && std::isdigit(static_cast<unsigned char>(operands[j])))
            ++j;
        if (j > i + 1 && j + 1 < operands.size() && operands[j] == 'r'
            && std::isdigit(static_cast<unsigned char>(operands[j + 1])))
            return true;
    }
    return false;
}

// A register pair operand given an odd register: objdump prints it and stops (ldd/std "r9", vadd2
// "r36r37,r7" of three operands).
bool objdumpTruncated(const ObjdumpLine& line)
{
    const std::string base = baseOf(line.mnemonic);
    const auto commas = std::count(line.operands.begin(), line.operands.end(), ',');
    if (base == "ldd" || base == "std")
        return commas == 0;
    return commas < 2 && namesPair(line.operands);
}

// Major 5's DSP operations in their `0,limm,u6` form (p 1, a and b 62) with u6 63: objdump prints
// the u6 as pcl, and computes an address from it; the core reads the number 63.
bool objdumpNamesU6Pcl(const Instruction& in)
{
    return in.size == 8 && (in.word & 0xf8c0003f) == 0x2840003e && ((in.word >> 6) & 63) == 63
        && ((in.word >> 24) & 7) == 6 && ((in.word >> 12) & 7) == 7;
}

void compareLine(const Code& code, const ObjdumpLine& line, Tally& tally)
{
    if (line.mnemonic == ".word" || line.mnemonic == ".short") {
        ++tally.unknown;
        return;
    }
    ++tally.compared;
    const auto bytes = bytesAt(code, line.address);
    auto in = decodeInstruction(bytes, line.address);
    if (!in) {
        mismatch(tally, line, in.error().message);
        return;
    }
    if (in->size != line.halfwords * 2) {
        mismatch(tally, line, "length " + std::to_string(in->size) + ", word " + hex(in->word));
        return;
    }
    if (objdumpTruncated(line)) {
        ++tally.truncated; // an operand (maybe pcl) is not printed: nothing to compare flags with
        return;
    }
    if (objdumpNamesU6Pcl(*in)) {
        ++tally.u6Pcl;
        return;
    }
    if (!line.mnemonic.empty()) // empty: an extension opcode whose class objdump guessed (it warns)
        compareFlags(*in, line, tally);
}

Tally compareWithObjdump(const std::string& path)
{
    Tally tally;
    Code code;
    auto elf = readElfImage(path);
    if (!elf) {
        tally.mismatches.push_back(elf.error().str());
        return tally;
    }
    code.elf = std::move(*elf);
    std::ifstream file(path, std::ios::binary);
    code.bytes.assign(std::istreambuf_iterator<char>(file), {});
    for (const auto& line : disassemble(path))
        compareLine(code, line, tally);
    return tally;
}

void expectAgreement(const std::string& path, size_t atLeast)
{
    const Tally tally = compareWithObjdump(path);
    std::printf(
        "%s: %zu instructions compared with arc-linux-gnu-objdump, %zu mismatches, %zu encodings objdump "
        "does not know (not compared); lengths compared, flags not: %zu with operands cut at an odd register for a "
        "pair, %zu DSP ops whose u6 63 objdump prints as pcl\n",
        path.c_str(), tally.compared, tally.mismatches.size(), tally.unknown, tally.truncated, tally.u6Pcl);
    EXPECT_GE(tally.compared, atLeast);
    EXPECT_TRUE(tally.mismatches.empty());
    for (const auto& m : tally.mismatches)
        if (!m.empty())
            ADD_FAILURE() << m;
}

bool haveArcTools(std::string& reason)
{
    if (std::string(PPE_ARC_OBJDUMP).empty())
        reason = "arc-linux-gnu-objdump is not installed (Debian: binutils-arc-linux-gnu)";
    else if (std::string(PPE_INSN_MIX_O2).empty())
        reason = "arc-linux-gnu-gcc-12 is not installed (Debian: gcc-12-arc-linux-gnu)";
    return reason.empty();
}

// Halfwords assembled as code (.short, in memory order) into an executable in a scratch folder,
// then compared with objdump like the real code.
void expectAgreementOnCode(const std::string& name, const std::vector<uint16_t>& code, size_t atLeast)
{
    char dir[] = "/tmp/ppe-arc-insn-XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    const std::string source = std::string(dir) + "/" + name + ".s", elf = std::string(dir) + "/" + name;
    {
        std::ofstream out(source);
        out << ".text\n.globl _start\n_start:\n";
        for (size_t i = 0; i < code.size(); i++)
            out << (i % 16 ? "," : "\n.short ") << code[i];
        out << "\n";
    }
    const std::string command = std::string(PPE_ARC_GCC) + " -nostdlib -static -o " + elf + " " + source;
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    expectAgreement(elf, atLeast);
    std::filesystem::remove_all(dir);
}

constexpr uint16_t kNopS = 0x78e0;

} // namespace

TEST(ArcInstruction, AgreesWithObjdumpOnDebiansArcLibc)
{
    std::string reason;
    if (std::string(PPE_ARC_OBJDUMP).empty())
        GTEST_SKIP() << "arc-linux-gnu-objdump is not installed (Debian: binutils-arc-linux-gnu)";
    if (!std::ifstream(PPE_ARC_LIBC))
        GTEST_SKIP() << PPE_ARC_LIBC << " is missing (Debian: libc6-arc-cross)";
    expectAgreement(PPE_ARC_LIBC, 100000);
}

TEST(ArcInstruction, AgreesWithObjdumpOnACompiledProgram)
{
    std::string reason;
    if (!haveArcTools(reason))
        GTEST_SKIP() << reason;
    for (const char* path : { PPE_INSN_MIX_O0, PPE_INSN_MIX_O2, PPE_INSN_MIX_OS })
        expectAgreement(path, 500);
}

// Random bytes reach the encodings no compiler emits (limms in odd places, reserved sub-opcodes,
// the extension majors); objdump sizes them by their format all the same.
TEST(ArcInstruction, AgreesWithObjdumpOnRandomBytes)
{
    std::string reason;
    if (!haveArcTools(reason))
        GTEST_SKIP() << reason;
    std::mt19937 random(37);
    std::vector<uint16_t> code(32768);
    for (auto& halfword : code)
        halfword = static_cast<uint16_t>(random());
    expectAgreementOnCode("random", code, 20000);
}

// Every 16-bit instruction (majors 8-31), each followed by two nop_s: its limm when it takes one,
// else two instructions more; either way the next one starts in step.
TEST(ArcInstruction, AgreesWithObjdumpOnEvery16BitEncoding)
{
    std::string reason;
    if (!haveArcTools(reason))
        GTEST_SKIP() << reason;
    std::vector<uint16_t> code;
    for (uint32_t halfword = 0x4000; halfword <= 0xffff; halfword++)
        code.insert(code.end(), { static_cast<uint16_t>(halfword), kNopS, kNopS });
    expectAgreementOnCode("every16", code, 0xc000);
}

// Every 32-bit major, sub-opcode, operand format and flag bit with the registers a, b and c each
// r0, r62 (a limm) or r63 (PCL), each followed by two nop_s as above.
TEST(ArcInstruction, AgreesWithObjdumpOnEvery32BitFormatWithLimmAndPcl)
{
    std::string reason;
    if (!haveArcTools(reason))
        GTEST_SKIP() << reason;
    std::vector<uint16_t> code;
    const uint32_t registers[] = { 0, 62, 63 };
    for (uint32_t top = 0; top < (8u << 9); top++) // major (3 bits of 5), p, sub-opcode, F
        for (uint32_t b : registers)
            for (uint32_t c : registers)
                for (uint32_t a : registers) {
                    const uint32_t w = (top >> 9) << 27 | (top & 0x1ff) >> 1 << 16 | (top & 1) << 15 | (b & 7) << 24
                        | (b >> 3) << 12 | c << 6 | a;
                    code.insert(code.end(), { static_cast<uint16_t>(w >> 16), static_cast<uint16_t>(w), kNopS, kNopS });
                }
    expectAgreementOnCode("every32", code, 100000);
}

// ---- hand-made encodings: what objdump's text does not show ----

namespace {

std::vector<uint8_t> memoryOf(std::initializer_list<uint16_t> halfwords)
{
    std::vector<uint8_t> bytes;
    for (uint16_t halfword : halfwords)
        bytes.insert(bytes.end(), { static_cast<uint8_t>(halfword), static_cast<uint8_t>(halfword >> 8) });
    return bytes;
}

} // namespace

TEST(ArcInstruction, RefusesASpanThatEndsInsideTheInstruction)
{
    const auto ld = memoryOf({ 0x2730, 0x7f8b, 0x000f, 0x3f38 }); // ld r11,[pcl,0xf3f38]: 8 bytes
    for (size_t size = 0; size < ld.size(); size++) {
        auto in = decodeInstruction({ ld.data(), size }, 0x220c8);
        EXPECT_FALSE(in.ok()) << size;
        EXPECT_EQ(instructionLength({ ld.data(), size }), 0u);
    }
    auto in = decodeInstruction(ld, 0x220c8);
    ASSERT_TRUE(in.ok()) << in.error().str();
    EXPECT_EQ(in->size, 8u);
    EXPECT_EQ(in->limm, 0x000f3f38u);
    EXPECT_TRUE(in->pcRelative);
    EXPECT_FALSE(in->relocatable());
    const auto one = memoryOf({ 0x78e0 }); // nop_s
    EXPECT_EQ(instructionLength({ one.data(), 1 }), 0u);
    EXPECT_EQ(instructionLength(one), 2u);
    auto short1 = decodeInstruction({ one.data(), 1 }, 0x1000);
    ASSERT_FALSE(short1.ok());
    EXPECT_EQ(short1.error().message, "instruction at 0x1000 needs 2 bytes, 1 given");
}

TEST(ArcInstruction, ClassifiesReturnsCallsAndJumps)
{
    auto decode = [](std::initializer_list<uint16_t> halfwords) {
        const auto bytes = memoryOf(halfwords);
        return decodeInstruction(bytes, 0x10000).value();
    };
    const auto ret = decode({ 0x7ee0 }); // j_s [blink]
    EXPECT_TRUE(ret.isReturn && ret.transfersControl && !ret.conditional && !ret.hasTarget);
    const auto retIf = decode({ 0x20e0, 0x07ca }); // jge [blink]
    EXPECT_TRUE(retIf.isReturn && retIf.conditional);
    const auto leave = decode({ 0xc6ca }); // leave_s [r13-r17,blink,pcl]
    EXPECT_TRUE(leave.isReturn && !leave.pcRelative);
    const auto call = decode({ 0x2022, 0x0f80, 0x0001, 0x2345 }); // jl 0x12345
    EXPECT_TRUE(call.call && call.hasTarget && !call.pcRelative && !call.delaySlot);
    EXPECT_EQ(call.target, 0x12345u);
    EXPECT_EQ(call.size, 8u);
    const auto blS = decode({ 0xffd2 }); // bl_s -184
    EXPECT_TRUE(blS.call && blS.pcRelative);
    EXPECT_EQ(blS.target, 0x10000u - 184);
    const auto jD = decode({ 0x2021, 0x0300 }); // j.d [r12]
    EXPECT_TRUE(jD.delaySlot && !jD.hasTarget && !jD.call);
    const auto add = decode({ 0x2100, 0x0080 }); // add r0,r1,r2
    EXPECT_TRUE(add.relocatable());
    EXPECT_EQ(add.size, 4u);
}

// ---- patch sites: what code injection may replace ----

namespace {

// 0x10000 add r0,r1,r2 / 0x10004 mov_s r3,0 / 0x10006 add_s r2,r2,1 / 0x10008 bne_s 0x10004 /
// 0x1000a j_s [blink] / 0x1000c j_s.d [blink] / 0x1000e add_s r2,r2,1 (the delay slot).
const std::vector<uint8_t> kFunction = memoryOf({ 0x2100, 0x0080, 0x706c, 0x7144, 0xf5fe, 0x7ee0, 0x7fe0, 0x7144 });
constexpr uint64_t kStart = 0x10000;

std::string refusalAt(uint64_t address, uint32_t need)
{
    auto site = checkPatchSite(kFunction, kStart, address, need);
    return site ? std::string("accepted") : site.error().message;
}

} // namespace

TEST(ArcPatchSite, MovesWholeInstructionsThatDoNotDependOnTheirAddress)
{
    auto site = checkPatchSite(kFunction, kStart, kStart, 4);
    ASSERT_TRUE(site.ok()) << site.error().str();
    EXPECT_EQ(site->size, 4u);
    ASSERT_EQ(site->moved.size(), 1u);
    EXPECT_EQ(site->moved[0].word, 0x21000080u);
    // Rounded up to whole instructions; bne_s branches to 0x10004, the patch's own start: allowed.
    auto two = checkPatchSite(kFunction, kStart, 0x10004, 3);
    ASSERT_TRUE(two.ok()) << two.error().str();
    EXPECT_EQ(two->size, 4u);
    EXPECT_EQ(two->moved.size(), 2u);
}

TEST(ArcPatchSite, RefusesBranchTargetsInsideTransfersPcRelativeAndDelaySlots)
{
    EXPECT_EQ(refusalAt(kStart, 6),
        "cannot patch at 0x10000: the instruction at 0x10008 branches to 0x10004, inside the replaced bytes");
    EXPECT_EQ(refusalAt(0x10004, 6), "cannot patch at 0x10004: the instruction at 0x10008 transfers control");
    EXPECT_EQ(refusalAt(0x1000e, 2), "cannot patch at 0x1000e: it is the delay slot of the instruction before");
    EXPECT_EQ(refusalAt(0x10002, 2), "cannot patch at 0x10002: no instruction starts there, walking from 0x10000");
    EXPECT_EQ(refusalAt(0x10010, 2), "cannot patch at 0x10010: outside the function at 0x10000");
    EXPECT_EQ(refusalAt(0x10006, 2), "accepted"); // bne_s lands on 0x10004, before it
    const auto plt = memoryOf({ 0x2730, 0x7f8b, 0x000f, 0x3f38, 0x78e0 }); // ld r11,[pcl,0xf3f38]
    auto site = checkPatchSite(plt, 0x220c8, 0x220c8, 4);
    ASSERT_FALSE(site.ok());
    EXPECT_EQ(site.error().message, "cannot patch at 0x220c8: the instruction at 0x220c8 is PC-relative");
    auto tooFar = checkPatchSite(plt, 0x220c8, 0x220d0, 4);
    ASSERT_FALSE(tooFar.ok());
    EXPECT_EQ(tooFar.error().message, "cannot patch at 0x220d0: the function ends before 4 bytes");
}
