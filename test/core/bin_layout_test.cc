#include "ppe/core/bin_layout.h"

#include <gtest/gtest.h>

namespace ppe {
namespace {

BinLayout layoutFor(uint64_t start, uint64_t end, uint32_t granularity, uint64_t budget)
{
    BinLayout layout;
    EXPECT_TRUE(computeBinLayout(start, end, granularity, budget, &layout));
    return layout;
}

TEST(BinLayout, StartsAtTheInstructionGranularity)
{
    const BinLayout l = layoutFor(0x1000, 0x1295, 1, 2048 * kPageBytes);
    EXPECT_EQ(l.width, 1u);
    EXPECT_EQ(l.shift, 0u);
    EXPECT_EQ(l.count, 0x295u);
    EXPECT_EQ(layoutFor(0x1000, 0x1100, 4, 2048 * kPageBytes).width, 4u);
}

TEST(BinLayout, DoublesUntilTheCountersFitTheBudget)
{
    // 1,000,000 bytes of code, 1 MiB of 4-byte counters: 262144 bins at most -> width 4.
    const BinLayout l = layoutFor(0, 1'000'000, 1, 1 << 20);
    EXPECT_EQ(l.width, 4u);
    EXPECT_EQ(l.count, 250'000u);
    EXPECT_LE(l.bytes(), uint64_t(1) << 20);
    // PPE's Table 4: 771456 bytes at 4-byte bins is 192864 bins (the 1 MiB default holds it).
    EXPECT_EQ(layoutFor(0x1106d0, 0x1106d0 + 771456, 4, 2048 * kPageBytes).count, 192864u);
    // The smallest width that fits is chosen: with budget for 1000 counters, 100000 bytes need 128.
    const BinLayout tight = layoutFor(0, 100'000, 1, 1000 * kBinBytes);
    EXPECT_EQ(tight.width, 128u);
    EXPECT_EQ(tight.count, (100'000u + 127) / 128);
    EXPECT_GT((100'000u + 63) / 64 * kBinBytes, 1000 * kBinBytes);
}

TEST(BinLayout, BinArithmetic)
{
    const BinLayout l = layoutFor(0x400000, 0x400000 + 10'000, 1, 512);
    EXPECT_EQ(l.width, 128u);
    EXPECT_EQ(l.binOf(0x400000), 0u);
    EXPECT_EQ(l.binOf(0x400000 + 127), 0u);
    EXPECT_EQ(l.binOf(0x400000 + 128), 1u);
    EXPECT_EQ(l.addressOf(3), 0x400000u + 384);
    EXPECT_EQ(l.count, 79u); // ceil(10000 / 128)
}

TEST(BinLayout, RejectsWhatCannotBeLaidOut)
{
    BinLayout l;
    EXPECT_FALSE(computeBinLayout(0x2000, 0x2000, 1, 1024, &l)) << "empty range";
    EXPECT_FALSE(computeBinLayout(0x2000, 0x1000, 1, 1024, &l)) << "inverted range";
    EXPECT_FALSE(computeBinLayout(0x1000, 0x2000, 3, 1024, &l)) << "granularity not a power of two";
    EXPECT_FALSE(computeBinLayout(0, uint64_t(1) << 40, 1, 4, &l)) << "no width up to 2^31 fits one counter";
    EXPECT_TRUE(computeBinLayout(0x1000, 0x1001, 1, 4, &l));
    EXPECT_EQ(l.count, 1u);
}

TEST(BinLayout, GranularityOfThisMachine)
{
#if defined(__x86_64__)
    EXPECT_EQ(instructionGranularity(), 1u);
#elif defined(__aarch64__)
    EXPECT_EQ(instructionGranularity(), 4u);
#endif
}

} // namespace
} // namespace ppe
