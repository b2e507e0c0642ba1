// The trampolines of code injection (trampoline.h, issue 37) against the real disassembler: the
// bytes built for a function are assembled at the address they will run at and read back with
// arc-linux-gnu-objdump, which must print the instructions intended, with the branch targets at
// the right labels; the patch at the entry must be the branch to the trampoline. And the refusals
// of injection.h's planPatch: a PC-relative instruction among the bytes to move, a branch into
// them, a site shorter than the branch.
#include "ppe/arc/aux_registers.h"
#include "ppe/arc/injection.h"
#include "ppe/arc/trampoline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ppe::arc;
using ppe::Result;

namespace {

bool haveTools(std::string& reason)
{
    if (std::string(PPE_ARC_OBJDUMP).empty())
        reason = "arc-linux-gnu-objdump is not installed (Debian: binutils-arc-linux-gnu)";
    else if (std::string(PPE_ARC_GCC).empty())
        reason = "arc-linux-gnu-gcc-12 is not installed (Debian: gcc-12-arc-linux-gnu)";
    return reason.empty();
}

// `bytes` assembled at `address` (.byte into .text, linked there) and disassembled: one
// "mnemonic operands" line per instruction, objdump's comment (a branch's target) after " ;".
std::vector<std::string> disassemble(const std::vector<uint8_t>& bytes, uint32_t address)
{
    char dir[] = "/tmp/ppe-arc-tramp-XXXXXX";
    if (!mkdtemp(dir))
        return {};
    const std::string source = std::string(dir) + "/t.s", elf = std::string(dir) + "/t";
    {
        std::ofstream out(source);
        out << ".text\n.globl __start\n__start:\n";
        for (size_t i = 0; i < bytes.size(); i++)
            out << (i % 16 ? "," : "\n.byte ") << unsigned(bytes[i]);
        out << "\n";
    }
    char text[32];
    std::snprintf(text, sizeof text, "0x%x", address);
    const std::string link
        = std::string(PPE_ARC_GCC) + " -nostdlib -static -Wl,-Ttext=" + text + " -o " + elf + " " + source;
    std::vector<std::string> lines;
    if (std::system(link.c_str()) != 0)
        return lines;
    FILE* pipe = popen((std::string(PPE_ARC_OBJDUMP) + " -d -w " + elf).c_str(), "r");
    char line[512];
    while (pipe && fgets(line, sizeof line, pipe)) {
        std::vector<std::string> fields;
        std::istringstream in(line);
        for (std::string field; std::getline(in, field, '\t');)
            fields.push_back(field.substr(0, field.find_last_not_of(" \n") + 1));
        if (fields.size() >= 3 && !fields[0].empty() && fields[0].back() == ':')
            lines.push_back(fields[2] + (fields.size() > 3 ? " " + fields[3] : "")
                + (fields.size() > 4 ? " " + fields[4].substr(0, fields[4].find(' ')) : ""));
    }
    if (pipe)
        pclose(pipe);
    std::filesystem::remove_all(dir);
    return lines;
}

// A function as gcc -O2 starts one: push_s blink; push_s r14; then ld r2,[limm], add_s, j_s [blink].
const std::vector<uint8_t> kFunction
    = { 0xf1, 0xc0, 0xe1, 0xc6, 0x00, 0x16, 0x02, 0x70, 0x02, 0x00, 0x08, 0x00, 0x44, 0x71, 0xe0, 0x7e };

TrampolineRequest requestAt(uint32_t entry, uint32_t code, HookAction action)
{
    Result<PatchSite> site = planPatch("f", kFunction, entry, code);
    EXPECT_TRUE(site) << site.error().str();
    TrampolineRequest r;
    r.entry = entry;
    r.site = site ? *site : PatchSite {};
    r.original.assign(kFunction.begin(), kFunction.begin() + r.site.size);
    r.code = code;
    r.data = 0x21000;
    r.capacity = 100;
    r.action = action;
    return r;
}

} // namespace

TEST(ArcTrampoline, DisassemblesToTheCountingHookAndTheMovedInstructions)
{
    std::string reason;
    if (!haveTools(reason))
        GTEST_SKIP() << reason;
    const TrampolineRequest r = requestAt(0x10000, 0x20000, HookAction::Counters);
    ASSERT_EQ(r.site.size, 4u) << "push_s blink; push_s r14 are moved whole";
    Result<Trampoline> t = buildTrampoline(r);
    ASSERT_TRUE(t) << t.error().str();
    const std::vector<std::string> expected = { "st.aw r12,[sp,-4]", "st.aw r11,[sp,-4]", "ld r12,[0x21000]",
        "add r12,r12,0x1", "st r12,[0x21000]", "ld r12,[0x21008]", "brhs.nt r12,0x64,64 ;20064", "add2 r11,0x21014,r12",
        "st blink,[r11]", "add r12,r12,0x1", "st r12,[0x21008]", "ld r11,[0x2100c]", "brhs.nt r11,r12,12 ;20058",
        "st r12,[0x2100c]", "mov blink,0x2008c", "b 24 ;20078",
        // 0x20064: a call deeper than the capacity is counted, its return not hooked
        "ld r12,[0x21010]", "add r12,r12,0x1", "st r12,[0x21010]",
        // 0x20078: registers back, the moved instructions, back to the function
        "ld.ab r11,[sp,4]", "ld.ab r12,[sp,4]", "push_s blink", "push_s r14", "j 0x10004",
        // 0x2008c: the exit stub, where hooked calls return
        "st.aw r12,[sp,-4]", "ld r12,[0x21004]", "add r12,r12,0x1", "st r12,[0x21004]", "ld r12,[0x21008]",
        "sub r12,r12,0x1", "st r12,[0x21008]", "add2 blink,0x21014,r12", "ld blink,[blink]", "ld.ab r12,[sp,4]",
        "j [blink]" };
    EXPECT_EQ(disassemble(t->code, r.code), expected);
    EXPECT_EQ(t->exitStub, 0x2008cu);
    EXPECT_EQ(disassemble(t->patch, r.entry), std::vector<std::string> { "b 65536 ;20000" });
}

TEST(ArcTrampoline, PctActionStartsAndStopsTheCountersAtTheOutermostCall)
{
    std::string reason;
    if (!haveTools(reason))
        GTEST_SKIP() << reason;
    const TrampolineRequest r = requestAt(0x10000, 0x20000, HookAction::Pct);
    Result<Trampoline> t = buildTrampoline(r);
    ASSERT_TRUE(t) << t.error().str();
    const std::vector<std::string> code = disassemble(t->code, r.code);
    const auto at = [&](const std::string& line) { return std::find(code.begin(), code.end(), line) - code.begin(); };
    // At entry: after the return is saved, PCT_CONTROL (aux 597 = 0x255) = 1 when the depth was 0.
    const long start = at("sr r11,[597]");
    ASSERT_LT(start, long(code.size())) << ::testing::PrintToString(code);
    EXPECT_EQ(code[start - 1], "mov r11,0x1");
    EXPECT_EQ(code[start - 2].substr(0, 16), "brne.nt r12,0,12");
    // At the return: PCT_CONTROL = 0 when the depth is back to 0, before the caller runs on.
    const long stop = at("sr blink,[597]");
    ASSERT_LT(stop, long(code.size())) << ::testing::PrintToString(code);
    EXPECT_EQ(code[stop - 1], "mov blink,0");
    EXPECT_GT(stop, at("sub r12,r12,0x1"));
    EXPECT_EQ(code.back(), "j [blink]");
}

// A trampoline beyond the reach of `b` (±16 MiB): the patch is `j` with a long immediate, and the
// site grows to 8 bytes of whole instructions (here 12: the third instruction has a limm).
TEST(ArcTrampoline, AFarTrampolineIsReachedByJ)
{
    std::string reason;
    if (!haveTools(reason))
        GTEST_SKIP() << reason;
    const TrampolineRequest r = requestAt(0x10000, 0x4000000, HookAction::Counters);
    EXPECT_EQ(r.site.size, 12u);
    Result<Trampoline> t = buildTrampoline(r);
    ASSERT_TRUE(t) << t.error().str();
    EXPECT_EQ(disassemble(t->patch, r.entry), (std::vector<std::string> { "j 0x4000000", "nop_s", "nop_s" }));
}

TEST(ArcTrampoline, RefusesWhatCannotBeMoved)
{
    // ld r1,[pcl,8] first: it reads the PC.
    const std::vector<uint8_t> pcRelative = { 0x08, 0x17, 0x01, 0x70, 0xe0, 0x7e };
    Result<PatchSite> refused = planPatch("reads_pc", pcRelative, 0x10000, 0x20000);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("reads_pc: cannot be patched at 0x10000"), std::string::npos)
        << refused.error().message;
    EXPECT_NE(refused.error().message.find("--method breakpoint"), std::string::npos);
    // push_s blink; mov_s r2,r0; add r0,r0,1; breq r0,0,f+2; j_s [blink]: a branch into the replaced bytes.
    const auto withBranchTo = [](uint32_t target) {
        std::vector<uint8_t> code = { 0xf1, 0xc0, 0x00, 0x42, 0x40, 0x20, 0x40, 0x00 };
        encode::branchCompareU6(code, 0, 0, 0, 0x10008, target);
        code.insert(code.end(), { 0xe0, 0x7e });
        return code;
    };
    refused = planPatch("loops_back", withBranchTo(0x10002), 0x10000, 0x20000);
    ASSERT_FALSE(refused);
    EXPECT_NE(refused.error().message.find("loops_back: cannot be patched"), std::string::npos)
        << refused.error().message;
    // The same function whose branch lands just past the replaced bytes is patched.
    EXPECT_TRUE(planPatch("ok", withBranchTo(0x10004), 0x10000, 0x20000));
    // A function shorter than the branch.
    EXPECT_FALSE(planPatch("tiny", std::vector<uint8_t> { 0xe0, 0x7e }, 0x10000, 0x20000));
    // A site smaller than the branch is refused by the builder too.
    TrampolineRequest r;
    r.entry = 0x10000;
    r.code = 0x20000;
    r.site.size = 2;
    r.original = { 0xf1, 0xc0 };
    EXPECT_FALSE(buildTrampoline(r));
}

// Moved bytes of 10 (mpy_s, ld with a limm): the exit stub starts 2 bytes past a word, where the
// branches of the PCT action count from the word below (PCL); objdump's targets must be the
// instructions after each `sr`.
TEST(ArcTrampoline, BranchesCountFromPclWhereTheStubIsNotWordAligned)
{
    std::string reason;
    if (!haveTools(reason))
        GTEST_SKIP() << reason;
    const std::vector<uint8_t> leaf = { 0x0c, 0x78, 0x00, 0x16, 0x02, 0x70, 0x02, 0x00, 0x04, 0x00, 0xe0, 0x7e };
    Result<PatchSite> site = planPatch("leaf", leaf, 0x10000, 0x20000);
    ASSERT_TRUE(site) << site.error().str();
    ASSERT_EQ(site->size, 10u);
    TrampolineRequest r;
    r.entry = 0x10000;
    r.site = *site;
    r.original.assign(leaf.begin(), leaf.begin() + 10);
    r.code = 0x20000;
    r.data = 0x21000;
    r.action = HookAction::Pct;
    Result<Trampoline> t = buildTrampoline(r);
    ASSERT_TRUE(t) << t.error().str();
    ASSERT_EQ(t->exitStub % 4, 2u);
    std::vector<std::string> code = disassemble(t->code, r.code);
    const std::vector<std::string> stub(code.end() - 14, code.end());
    // The brne sits 44 bytes into the stub, at 2 past a word: its offset (14) counts from the word
    // below, and it lands 12 bytes on, past the `sr`.
    char target[32];
    std::snprintf(target, sizeof target, "14 ;%x", t->exitStub + 44 + 12);
    const std::vector<std::string> expected
        = { "st.aw r12,[sp,-4]", "ld r12,[0x21004]", "add r12,r12,0x1", "st r12,[0x21004]", "ld r12,[0x21008]",
              "sub r12,r12,0x1", "st r12,[0x21008]", std::string("brne.nt r12,0,") + target, "mov blink,0",
              "sr blink,[597]", "add2 blink,0x21014,r12", "ld blink,[blink]", "ld.ab r12,[sp,4]", "j [blink]" };
    EXPECT_EQ(stub, expected);
}

// The aux registers' third way (aux_registers.h): the stub the target runs is lr r0,[r0] and
// sr r1,[r0], as objdump reads them.
TEST(ArcTrampoline, TheAuxStubIsLrAndSr)
{
    std::string reason;
    if (!haveTools(reason))
        GTEST_SKIP() << reason;
    const std::vector<std::string> expected = { "lr r0,[r0]", "sr r1,[r0]" };
    EXPECT_EQ(disassemble(auxStubCode(), 0x10000), expected);
    EXPECT_EQ(auxStubCode().size(), kAuxStubBytes);
}
