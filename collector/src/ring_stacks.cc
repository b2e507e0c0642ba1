#include "ring_stacks.h"

namespace ppe {

namespace {

    // The registers asked for, in the order the kernel writes them (by their perf number).
#if defined(__aarch64__)
    enum : uint64_t { kFp = 29, kLr = 30, kSp = 31, kPc = 32 };
    constexpr uint64_t kRegisters = (1ull << kFp) | (1ull << kLr) | (1ull << kSp) | (1ull << kPc);
    constexpr int kRegisterCount = 4;
#else
    enum : uint64_t { kFp = 6, kSp = 7, kPc = 8 }; // PERF_REG_X86_BP, _SP, _IP
    constexpr uint64_t kRegisters = (1ull << kFp) | (1ull << kSp) | (1ull << kPc);
    constexpr int kRegisterCount = 3;
#endif

    struct RingReader {
        const char* data;
        uint64_t mask, at, end;
        bool take(void* out, uint64_t bytes)
        {
            if (bytes > end - at)
                return false;
            copyFromRing(data, mask, at, out, bytes);
            at += bytes;
            return true;
        }
    };

} // namespace

void askUserState(perf_event_attr& attr, uint32_t stackBytes)
{
    attr.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    attr.sample_regs_user = kRegisters;
    attr.sample_stack_user = stackBytes & ~7u;
}

uint64_t userStateBytes(uint32_t stackBytes) { return 8 + 8 * kRegisterCount + 8 + (stackBytes & ~7u) + 8; }

bool readUserState(const char* data, uint64_t mask, uint64_t at, uint64_t fixedBytes, uint64_t size, uint8_t* buffer,
    uint64_t capacity, UserState* out)
{
    RingReader r { data, mask, at + fixedBytes, at + size };
    uint64_t abi = 0, regs[kRegisterCount] {}, stackSize = 0;
    if (size < fixedBytes || !r.take(&abi, 8) || abi == PERF_SAMPLE_REGS_ABI_NONE || !r.take(regs, sizeof(regs))
        || !r.take(&stackSize, 8) || stackSize > capacity)
        return false;
    // The copy, then the bytes of it the kernel could fill (less where the stack ends sooner).
    uint64_t filled = 0;
    if (stackSize && (!r.take(buffer, stackSize) || !r.take(&filled, 8) || filled > stackSize))
        return false;
#if defined(__aarch64__)
    *out = UserState { regs[3], regs[2], regs[0], regs[1], true, buffer, filled };
#else
    *out = UserState { regs[2], regs[1], regs[0], 0, false, buffer, filled };
#endif
    return true;
}

} // namespace ppe
