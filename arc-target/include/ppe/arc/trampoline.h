// Trampolines for inclusive counts by code injection (issue 37, thesis §4.2): the machine code that
// runs at a function's entry and at its return, built as bytes for an ARC HS core (ARCv2,
// little-endian) at the address it will run at. Pure: nothing here touches a target.
//
// The function's first whole instructions (checkPatchSite, instruction.h) are replaced by a branch
// to the trampoline, which
//   1. counts the call and, below the depth capacity, pushes the caller's return address (`blink`)
//      on a stack of its own in target memory and puts the address of its exit stub in `blink`, so
//      that the function returns into the stub (the thesis's one injection per function, §4.2.1);
//   2. runs the entry action (PCT: start the counters when the call is the outermost one);
//   3. runs the moved instructions, then jumps back to the first byte after the patch.
// The exit stub counts the return, pops the saved `blink`, runs the stop action at the outermost
// return and returns to the caller. Recursion: the stack of saved returns holds one per depth; a
// call deeper than its capacity is counted but its return is not hooked (`overflow` says how many).
//
// What it costs the target: the entry path is at most kEntryInstructions instructions (11 of them
// loads and stores), the exit stub kExitInstructions (7); the PCT action 3 more each; no stop of
// the core.
// Not supported: threads (the depth and the stack are shared by all threads), longjmp or exceptions
// out of a hooked call (its saved return is never popped), code that reads its own return address
// (__builtin_return_address, unwinders: they see the exit stub).
// The registers the trampoline uses (r11, r12) are saved on the stack below `sp` and restored;
// the flags are not touched. `blink` is the hook: the function saves the stub's address itself.
#pragma once

#include "ppe/arc/aux_registers.h"
#include "ppe/arc/instruction.h"
#include "ppe/support/result.h"

#include <cstdint>
#include <vector>

namespace ppe::arc {

// What runs at the outermost entry and its return, besides the counts in target memory.
enum class HookAction {
    Counters, // only the counts: what a Linux user-mode program may run (privileged aux registers trap)
    Pct, // plus `sr` to PCT_CONTROL (aux 0x255): run the counters at the outermost entry, stop them at its return
};

// The counters of one hooked function, 32-bit words in target memory from `data` on.
namespace hook {
    constexpr uint32_t kCalls = 0, kReturns = 4, kDepth = 8, kMaxDepth = 12, kOverflow = 16;
    constexpr uint32_t kStack = 20; // the saved returns, one word per depth
    constexpr uint32_t dataSize(uint32_t capacity) { return kStack + 4 * capacity; }
} // namespace hook

struct TrampolineRequest {
    uint32_t entry = 0; // the function's run-time entry, where the patch goes
    PatchSite site; // the replaced instructions (checkPatchSite at `entry`)
    std::vector<uint8_t> original; // the bytes of `site` as the target holds them
    uint32_t code = 0; // where the trampoline goes (even)
    uint32_t data = 0; // where its counters go (4-aligned), hook::dataSize(capacity) bytes, zeroed
    uint32_t capacity = 64; // saved returns: the deepest recursion whose returns are hooked
    HookAction action = HookAction::Counters;
    // The register the PCT action writes 1 and 0 to: PCT_CONTROL (a test on a core without a PCT
    // names a stand-in a program may write, e2e/arc_inject_test.cc).
    uint32_t control = aux::kPctControl;
};

struct Trampoline {
    std::vector<uint8_t> code; // for `request.code`
    uint32_t exitStub = 0; // where hooked calls return to
    std::vector<uint8_t> patch; // for `request.entry`: the branch, padded to the site's size
};

// The bytes of a branch from `from` to `to`: `b` (4 bytes) within its ±16 MiB, else `j` with a
// long immediate (8 bytes). What the patch at an entry needs before checkPatchSite is asked.
uint32_t patchLength(uint32_t from, uint32_t to);

// The trampoline and the patch; an error when the site is smaller than the branch or the addresses
// are misaligned.
Result<Trampoline> buildTrampoline(const TrampolineRequest& request);

// The instructions of the paths, for the cost the command reports.
constexpr unsigned kEntryInstructions = 19, kExitInstructions = 11;

// The ARCv2 encodings the trampolines use (the thesis's "auxiliary assembler", §4.2.3), each
// appending its bytes (32-bit forms as two little-endian halfwords, the high one first).
namespace encode {
    void word32(std::vector<uint8_t>& out, uint32_t word);
    void limm(std::vector<uint8_t>& out, uint32_t value);
    void pushReg(std::vector<uint8_t>& out, unsigned reg); // st.aw reg,[sp,-4]
    void popReg(std::vector<uint8_t>& out, unsigned reg); // ld.ab reg,[sp,4]
    void loadAbs(std::vector<uint8_t>& out, unsigned reg, uint32_t address); // ld reg,[limm]
    void storeAbs(std::vector<uint8_t>& out, unsigned reg, uint32_t address); // st reg,[limm]
    void addImm(std::vector<uint8_t>& out, unsigned reg, unsigned u6); // add reg,reg,u6
    void subImm(std::vector<uint8_t>& out, unsigned reg, unsigned u6); // sub reg,reg,u6
    void movImm(std::vector<uint8_t>& out, unsigned reg, unsigned u6); // mov reg,u6
    void movLimm(std::vector<uint8_t>& out, unsigned reg, uint32_t value); // mov reg,limm
    void add2Limm(std::vector<uint8_t>& out, unsigned a, uint32_t base, unsigned c); // add2 a,limm,c
    void storeAt(std::vector<uint8_t>& out, unsigned value, unsigned base); // st value,[base]
    void loadAt(std::vector<uint8_t>& out, unsigned reg, unsigned base); // ld reg,[base]
    void srAux(std::vector<uint8_t>& out, unsigned reg, uint32_t aux); // sr reg,[aux] (aux < 2048)
    void lrReg(std::vector<uint8_t>& out, unsigned b, unsigned c); // lr b,[c]
    void srReg(std::vector<uint8_t>& out, unsigned b, unsigned c); // sr b,[c]
    void jumpAbs(std::vector<uint8_t>& out, uint32_t target); // j limm
    void jumpReg(std::vector<uint8_t>& out, unsigned reg); // j [reg]
    // b s25 at `at` to `to` (within ±16 MiB, `to` even).
    void branch(std::vector<uint8_t>& out, uint32_t at, uint32_t to);
    // br<cc> b,c,s9 at `at` to `to` (within ±256 bytes); cc 0 eq, 1 ne, 4 lo, 5 hs; `c` a register,
    // a u6 or a long immediate.
    void branchCompare(std::vector<uint8_t>& out, unsigned cc, unsigned b, unsigned c, uint32_t at, uint32_t to);
    void branchCompareU6(std::vector<uint8_t>& out, unsigned cc, unsigned b, unsigned u6, uint32_t at, uint32_t to);
    void branchCompareLimm(
        std::vector<uint8_t>& out, unsigned cc, unsigned b, uint32_t value, uint32_t at, uint32_t to);
} // namespace encode

} // namespace ppe::arc
