// Issue 39: what a perf-ring sample carries for its call path, as `perf record --call-graph dwarf`
// asks for it: the user registers an unwind starts from (PERF_SAMPLE_REGS_USER) and a copy of the
// user stack from the stack pointer up (PERF_SAMPLE_STACK_USER). The kernel copies them at the
// sample; the collector thread unwinds them later, from the ring. Raw bytes and arithmetic: safe
// wherever the drain runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <linux/perf_event.h>

namespace ppe {

// A sampled thread's registers and stack, as the kernel took them.
struct UserState {
    uint64_t pc = 0, sp = 0, fp = 0, lr = 0;
    bool lrValid = false; // AArch64: the link register, the return address of a leaf
    const uint8_t* stack = nullptr; // the bytes from sp up
    uint64_t stackSize = 0;
};

// Copies `bytes` at ring offset `at` (any, wrapped by `mask`) out of ring data `data`.
inline void copyFromRing(const char* data, uint64_t mask, uint64_t at, void* out, size_t bytes)
{
    const uint64_t start = at & mask;
    const uint64_t first = bytes < mask + 1 - start ? bytes : mask + 1 - start;
    std::memcpy(out, data + start, first);
    std::memcpy(static_cast<char*>(out) + first, data, bytes - first);
}

// Asks `attr` for the registers and `stackBytes` of stack (a multiple of 8) with each sample.
void askUserState(perf_event_attr& attr, uint32_t stackBytes);

// The bytes a sample record gains by it, at most.
uint64_t userStateBytes(uint32_t stackBytes);

// The user state of the sample record of `size` bytes at ring offset `at`, after its `fixedBytes`
// of other fields; its stack copied into `buffer` (`capacity` bytes). False when the sample has
// none (the kernel had no user registers for it) or the record is shorter than it says.
bool readUserState(const char* data, uint64_t mask, uint64_t at, uint64_t fixedBytes, uint64_t size, uint8_t* buffer,
    uint64_t capacity, UserState* out);

} // namespace ppe
