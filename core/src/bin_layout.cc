#include "ppe/core/bin_layout.h"

namespace ppe {

uint32_t instructionGranularity()
{
#if defined(__x86_64__) || defined(__i386__)
    return 1; // variable-length instructions
#elif defined(__arc__) || defined(__arm__) || defined(__riscv)
    return 2; // 16-bit compressed/short instructions exist
#else
    return 4; // fixed 32-bit encodings (aarch64, powerpc, ...)
#endif
}

static bool isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

// ceil(length / 2^shift), without overflowing near 2^64.
static uint64_t binsFor(uint64_t length, uint32_t shift)
{
    return (length >> shift) + ((length & ((uint64_t(1) << shift) - 1)) != 0);
}

bool computeBinLayout(uint64_t start, uint64_t end, uint32_t granularity, uint64_t budgetBytes, BinLayout* out)
{
    if (end <= start || !isPowerOfTwo(granularity))
        return false;
    uint32_t shift = 0;
    while ((uint32_t(1) << shift) < granularity)
        ++shift;
    const uint64_t length = end - start;
    for (; shift < 32; ++shift) {
        const uint64_t count = binsFor(length, shift);
        if (count > budgetBytes / kBinBytes)
            continue;
        *out = BinLayout { start, end, uint32_t(1) << shift, shift, count };
        return true;
    }
    return false;
}

} // namespace ppe
