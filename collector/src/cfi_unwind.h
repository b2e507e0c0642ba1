// Issue 39: call paths for code built as users build it. gcc and gfortran -O2 omit the frame
// pointer on x86-64 and AArch64, so a frame-pointer walk stops or goes astray in the first frame;
// the call frame information every object carries for C++ exceptions (.eh_frame, indexed by
// .eh_frame_hdr) says for any PC where the caller's registers are. This follows it: no allocation,
// no exceptions, every read through a MemoryReader (process_vm_readv on the collector thread, so that
// an object unmapped meanwhile or a damaged table fails a read instead of the program), every loop
// bounded. It follows what compilers emit (DW_CFA_* rows, the PLT's CFA expression); a frame it
// cannot follow (signal frames, hand-written code without CFI, JIT code) ends the path and says why.
#pragma once

#include <stddef.h>
#include <stdint.h>

namespace ppe {

// The DWARF numbers of the registers an unwind follows, on this architecture (0xffff: none).
#if defined(__aarch64__)
constexpr uint32_t kDwarfSp = 31, kDwarfFp = 29, kDwarfLr = 30, kDwarfPc = 0xffff;
#else
constexpr uint32_t kDwarfSp = 7, kDwarfFp = 6, kDwarfLr = 0xffff, kDwarfPc = 16;
#endif

// The registers an unwind needs, by role. DWARF numbers them by architecture: x86-64 rsp 7, rbp 6,
// return address column 16; AArch64 sp 31, x29 (fp) 29, x30 (lr) 30.
struct FrameRegisters {
    uint64_t pc = 0;
    uint64_t sp = 0;
    uint64_t fp = 0;
    uint64_t lr = 0; // AArch64 only: where a leaf's return address still is
    bool lrValid = false; // the lr is this frame's (true only for the frame sampled)
};

// Copies `size` bytes at `address` of the unwound process into `out`; false where it cannot.
struct MemoryReader {
    bool (*read)(const void* context, uint64_t address, void* out, size_t size) = nullptr;
    const void* context = nullptr;
    bool operator()(uint64_t address, void* out, size_t size) const { return read(context, address, out, size); }
};

// Where a register's caller value is, at one PC (DWARF's register rules, those compilers emit for
// the registers an unwind follows).
struct RegisterRule {
    enum class Kind : uint8_t { Undefined, Same, Offset, ValOffset, Register };
    Kind kind = Kind::Same;
    int64_t value = 0; // Offset/ValOffset: from the CFA; Register: its DWARF number
};

constexpr size_t kMaxCfaExpression = 16; // the PLT's is 11 bytes

// The CFI row for one PC: the canonical frame address (the caller's stack pointer) and the rules of
// the return address and the frame pointer.
struct FrameRule {
    uint32_t cfaRegister = 0;
    int64_t cfaOffset = 0;
    uint8_t cfaExpressionSize = 0; // non-zero: the CFA is this DWARF expression's value (the PLT's)
    uint8_t cfaExpression[kMaxCfaExpression] {};
    RegisterRule returnAddress;
    RegisterRule framePointer;
    bool signalFrame = false; // the CIE's 'S': a signal trampoline's frame
};

// Why an unwind stopped.
enum class UnwindEnd : uint8_t {
    Outermost, // the CFI says the return address is undefined (_start, clone's thread start)
    Full, // as many frames as asked for
    NoObject, // the PC is in no object with an .eh_frame_hdr (JIT code, an unmapped address)
    NoCfi, // the object has no CFI for the PC (hand-written code without it)
    Unsupported, // CFI this does not follow (a signal frame, an expression, a 64-bit table entry size)
    Unreadable, // a read failed: the stack copy ends, or the object's tables do
    NoProgress, // the caller's frame is not above this one: damaged CFI or stack
};

// The row of the CFI at `.eh_frame_hdr` (run-time address `ehFrameHdr`) for `pc`; on failure why.
// `caller`: pc is a return address, so the call is before it (the row of pc - 1 is looked up: a
// call to a function that does not return can be a function's last instruction).
bool findFrameRule(
    const MemoryReader& code, uint64_t ehFrameHdr, uint64_t pc, bool caller, FrameRule* rule, UnwindEnd* why);

// Moves `regs` from a frame to its caller's by `rule`, reading saved registers through `stack`.
// False with `why` when that cannot be done, or the caller is the outermost frame.
bool stepFrame(const FrameRule& rule, const MemoryReader& stack, FrameRegisters* regs, UnwindEnd* why);

// Which object's .eh_frame_hdr covers a PC: its run-time address, 0 when none does.
struct ObjectLookup {
    uint64_t (*ehFrameHdr)(const void* context, uint64_t pc) = nullptr;
    const void* context = nullptr;
};

struct UnwindResult {
    size_t frames = 0; // PCs written: the sampled PC first, then return addresses
    UnwindEnd end = UnwindEnd::Full;
};

// Where an unwind gets the row for a PC (`caller`: as findFrameRule's): read from the tables each
// time (the ObjectLookup form of unwindPath), or kept from the last time (cfi_cache.h).
struct RuleSource {
    bool (*find)(const void* context, uint64_t pc, bool caller, FrameRule* rule, UnwindEnd* why) = nullptr;
    const void* context = nullptr;
};

// The call path from `regs`: at most `capacity` PCs into `pcs`, the sampled PC first.
UnwindResult unwindPath(
    const RuleSource& rules, const MemoryReader& stack, FrameRegisters regs, uint64_t* pcs, size_t capacity);

// The same, each row read from the tables of the object `objects` names, through `code`.
UnwindResult unwindPath(const ObjectLookup& objects, const MemoryReader& code, const MemoryReader& stack,
    FrameRegisters regs, uint64_t* pcs, size_t capacity);

} // namespace ppe
