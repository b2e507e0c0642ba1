// libFuzzer target: the collector's CFI unwinder (collector/src/cfi_unwind.h, issue 39), which reads
// the .eh_frame_hdr and .eh_frame of every object loaded into a profiled program, and its stack.
// The input is [u64 pc, relative to the table][u64 sp offset][bytes]: the bytes are the process's
// memory at kBase, the .eh_frame_hdr at kBase and the stack at kBase + sp offset; every read outside
// them fails, as process_vm_readv does on an unmapped page. fuzz/cfi_seed.py makes one from an ELF
// file's .eh_frame_hdr and .eh_frame (they are adjacent, as a linker lays them out).
#include "cfi_unwind.h"

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

constexpr uint64_t kBase = 0x400000;

struct Memory {
    const uint8_t* data;
    size_t size;
};

bool readMemory(const void* context, uint64_t address, void* out, size_t size)
{
    const auto* m = static_cast<const Memory*>(context);
    if (address < kBase || address - kBase > m->size || size > m->size - (address - kBase))
        return false;
    std::memcpy(out, m->data + (address - kBase), size);
    return true;
}

uint64_t table(const void*, uint64_t) { return kBase; }

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size < 16)
        return 0;
    int64_t pc = 0;
    uint64_t sp = 0;
    std::memcpy(&pc, data, 8);
    std::memcpy(&sp, data + 8, 8);
    const Memory memory { data + 16, size - 16 };
    const ppe::MemoryReader reader { readMemory, &memory };
    ppe::FrameRule rule;
    ppe::UnwindEnd why = ppe::UnwindEnd::Full;
    if (ppe::findFrameRule(reader, kBase, kBase + uint64_t(pc), false, &rule, &why)) {
        ppe::FrameRegisters regs { kBase + uint64_t(pc), kBase + sp, kBase + sp + 64, 0, false };
        ppe::stepFrame(rule, reader, &regs, &why);
    }
    uint64_t pcs[64];
    const ppe::FrameRegisters start { kBase + uint64_t(pc), kBase + sp, kBase + sp + 64, 0, false };
    const ppe::UnwindResult r = ppe::unwindPath(ppe::ObjectLookup { table, nullptr }, reader, reader, start, pcs, 64);
    if (r.frames > 64)
        __builtin_trap();
    return 0;
}
