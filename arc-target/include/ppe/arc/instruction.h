// One ARCv2 instruction (ARC HS and EM, little-endian: what Debian's gcc-12-arc-linux-gnu builds,
// -mcpu=hs38_linux) decoded from the bytes at an address: its length, whether it reads the PC,
// whether and where it transfers control. The first piece of code injection (issue 37, thesis
// §4.2): the bytes replaced by a jump to a trampoline must be whole instructions, and those moved
// into the trampoline must not depend on the address they ran at.
//
// The encoding (GNU binutils' opcodes/arc-tbl.h and arc-dis.c, the ARCv2 programmer's reference):
// the major opcode is bits 15..11 of the first 16-bit halfword; majors 0-7 are 32-bit, 8-31
// 16-bit. A 32-bit instruction is stored as two little-endian halfwords, the high half first
// ("middle-endian"). A register field naming r62 where a source register goes (r30 in the 5-bit
// `h` field of the 16-bit forms) means a 32-bit long immediate (limm) follows, stored the same
// way: lengths are 2, 4, 6 or 8 bytes. r63 is PCL, the instruction's address rounded down to 4.
// Golden-tested against arc-linux-gnu-objdump (test/unit/arc/instruction_test.cc).
#pragma once

#include "ppe/support/result.h"

#include <cstdint>
#include <span>
#include <vector>

namespace ppe::arc {

struct Instruction {
    uint64_t address = 0;
    uint32_t size = 0; // 2, 4, 6 or 8 bytes, the limm included
    uint32_t word = 0; // the 16- or 32-bit instruction (32-bit: the first halfword in bits 31..16)
    uint32_t limm = 0; // the long immediate, when hasLimm
    bool hasLimm = false;
    // Its effect depends on where it sits: it reads PCL (an operand, a branch or loop offset, `ld_s
    // b,[pcl,u10]`), or indexes from the next instruction (`bi`, `bih`) or runs a table entry and
    // comes back to it (`jli_s`, `ei_s`). Such an instruction cannot be copied elsewhere as is.
    bool pcRelative = false;
    // It may continue somewhere other than the next instruction: branches, calls, jumps, returns,
    // `lp` (which may skip to the loop's end), `bi`/`bih`, `jli_s`, `ei_s`, `rtie`, `leave_s` with
    // its return.
    bool transfersControl = false;
    bool conditional = false; // a condition may make it fall through (b<cc>, br<cc>, bbit, j<cc>...)
    bool call = false; // sets blink: bl, bl_s, jl, jl_s, jli_s
    bool isReturn = false; // j [blink], j_s [blink], jeq_s/jne_s [blink], leave_s with its return
    bool delaySlot = false; // .d: the next instruction runs before the transfer
    bool hasTarget = false; // the destination is known from the bytes alone
    uint64_t target = 0; // that destination (PCL-relative ones computed from `address`)

    // May be copied to another address and run there with the same effect.
    bool relocatable() const { return !pcRelative && !transfersControl; }
};

// The instruction at the start of `bytes`, which holds memory from `address` on. Never reads past
// the span; an error when the span ends inside the instruction (its limm included). Encodings no
// ARCv2 core defines are decoded by their format all the same, as objdump sizes them.
Result<Instruction> decodeInstruction(std::span<const uint8_t> bytes, uint64_t address);

// The length alone: 0 when `bytes` is too short to tell or to hold it.
uint32_t instructionLength(std::span<const uint8_t> bytes);

// The whole instructions a patch of at least `need` bytes at `address` would replace, when they may
// be moved into a trampoline: none PC-relative or a transfer, `address` not in the delay slot of the
// instruction before it, and no static target of any instruction of `function` (the bytes from
// `functionStart`, holding `address`, walked from its start) strictly inside the replaced bytes.
// Else an error naming the instruction and the reason. Indirect jumps (`j [r]`, `bi`) are not seen:
// only static targets can be checked.
struct PatchSite {
    uint64_t address = 0;
    uint32_t size = 0; // the replaced bytes: whole instructions, at least `need`
    std::vector<Instruction> moved;
};
Result<PatchSite> checkPatchSite(
    std::span<const uint8_t> function, uint64_t functionStart, uint64_t address, uint32_t need);

} // namespace ppe::arc
