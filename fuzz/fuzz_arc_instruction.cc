// libFuzzer target: the ARCv2 instruction decoder (arc-target/instruction.h), which code injection
// will run over the target's code. The input's first 4 bytes are the address (little-endian), the
// rest is code, decoded from each instruction to the next as a disassembler walks it. Each
// instruction is decoded again from a heap copy of exactly its bytes (ASan sees any read past the
// span) and from one byte fewer (must be refused); the results must be consistent. A patch site
// chosen by the input's second and third bytes is checked too (checkPatchSite).
#include "ppe/arc/instruction.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>

namespace {

void check(bool condition)
{
    if (!condition)
        std::abort();
}

// The instruction at `code` decoded from an exact copy, and refused from a copy one byte short.
void checkExact(const uint8_t* code, const ppe::arc::Instruction& in)
{
    auto exact = std::make_unique<uint8_t[]>(in.size);
    for (uint32_t i = 0; i < in.size; ++i)
        exact[i] = code[i];
    auto again = ppe::arc::decodeInstruction({ exact.get(), in.size }, in.address);
    check(again.ok() && again->size == in.size && again->word == in.word && again->limm == in.limm);
    check(again->pcRelative == in.pcRelative && again->target == in.target);
    auto shorter = ppe::arc::decodeInstruction({ exact.get(), in.size - 1u }, in.address);
    check(!shorter.ok());
    check(ppe::arc::instructionLength({ exact.get(), in.size }) == in.size);
}

void checkInstruction(const ppe::arc::Instruction& in, size_t left)
{
    check(in.size == 2 || in.size == 4 || in.size == 6 || in.size == 8);
    check(in.size <= left);
    check(in.hasLimm == (in.size == 6 || in.size == 8));
    check(in.target <= 0xffffffffu);
    check(!in.hasTarget || in.transfersControl);
    check(!in.call || in.transfersControl);
    check(!in.isReturn || in.transfersControl);
    check(in.relocatable() == (!in.pcRelative && !in.transfersControl));
}

// A patch site somewhere in the input, `need` 1-16 bytes: accepted, it holds whole instructions
// covering `need`, none of which depends on its address.
void checkPatchSite(const uint8_t* data, size_t size, uint64_t start)
{
    const size_t code = size - 4;
    const uint64_t address = start + 2 * (data[1] % (code / 2 + 1));
    const uint32_t need = 1 + data[2] % 16;
    auto site = ppe::arc::checkPatchSite({ data + 4, code }, start, address, need);
    if (!site.ok())
        return;
    uint32_t covered = 0;
    for (const auto& in : site->moved) {
        check(in.address == address + covered && in.relocatable());
        covered += in.size;
    }
    check(covered == site->size && site->size >= need && site->address == address);
    check(address + site->size <= start + code);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 4)
        return 0;
    uint64_t address = uint64_t(data[0]) | uint64_t(data[1]) << 8 | uint64_t(data[2]) << 16 | uint64_t(data[3]) << 24;
    address &= ~uint64_t(1); // instructions are halfword-aligned
    checkPatchSite(data, size, address);
    size_t offset = 4;
    while (offset < size) {
        auto in = ppe::arc::decodeInstruction({ data + offset, size - offset }, address);
        if (!in.ok())
            break; // the code ends inside an instruction
        checkInstruction(*in, size - offset);
        checkExact(data + offset, *in);
        offset += in->size;
        address = (address + in->size) & 0xffffffffu;
    }
    return 0;
}
