// PPE's bin width rule: start at the instruction granularity and double until the counters fit the
// budget; the smallest width that fits wins.
#include "ppe/core/bin_layout.h"

#include <gtest/gtest.h>

namespace ppe {
namespace {

    constexpr uint64_t kOneMiB = 1024 * 1024;

    BinLayout layoutOf(uint64_t start, uint64_t end, uint32_t granularity, uint64_t budget)
    {
        BinLayout layout;
        EXPECT_TRUE(computeBinLayout(start, end, granularity, budget, &layout));
        return layout;
    }

    TEST(BinLayout, MegabyteOfCodeInDefaultBudgetNeedsFourByteBins)
    {
        // 1,000,000 bytes: 1- and 2-byte bins need 4 MB and 2 MB of counters, 4-byte bins 1,000,000 bytes.
        const BinLayout layout = layoutOf(0x400000, 0x400000 + 1'000'000, 1, kOneMiB);
        EXPECT_EQ(layout.start, 0x400000u);
        EXPECT_EQ(layout.end, 0x400000u + 1'000'000);
        EXPECT_EQ(layout.width, 4u);
        EXPECT_EQ(layout.shift, 2u);
        EXPECT_EQ(layout.count, 250'000u);
        EXPECT_EQ(layout.bytes(), 1'000'000u);
    }

    TEST(BinLayout, DefaultPagesAreOneMebibyte)
    {
        // PPE_MEM's default of 2048 pages of 512 bytes.
        const BinLayout layout = layoutOf(0, 1'000'000, 1, 2048 * kPageBytes);
        EXPECT_EQ(layout.width, 4u);
        EXPECT_EQ(layout.count, 250'000u);
    }

    TEST(BinLayout, ExactFitKeepsTheSmallerWidth)
    {
        // 4096 bytes in 4-byte bins is 1024 counters, exactly 4096 bytes of budget.
        EXPECT_EQ(layoutOf(0x1000, 0x2000, 1, 4096).width, 4u);
        // One byte less and the width doubles once, not more.
        const BinLayout layout = layoutOf(0x1000, 0x2000, 1, 4095);
        EXPECT_EQ(layout.width, 8u);
        EXPECT_EQ(layout.count, 512u);
    }

    TEST(BinLayout, EveryWidthStepIsADoubling)
    {
        // A 2^20-byte range with a budget of 2^k bytes needs width 2^(22-k) exactly.
        for (uint32_t k = 2; k <= 22; ++k) {
            SCOPED_TRACE(k);
            const BinLayout layout = layoutOf(0, uint64_t(1) << 20, 1, uint64_t(1) << k);
            EXPECT_EQ(layout.width, uint32_t(1) << (22 - k));
            EXPECT_EQ(layout.shift, 22 - k);
            EXPECT_EQ(layout.bytes(), uint64_t(1) << k);
        }
    }

    TEST(BinLayout, WidthStartsAtTheGranularity)
    {
        const BinLayout layout = layoutOf(0x1000, 0x1100, 4, kOneMiB);
        EXPECT_EQ(layout.width, 4u);
        EXPECT_EQ(layout.shift, 2u);
        EXPECT_EQ(layout.count, 64u);
        EXPECT_EQ(layoutOf(0x1000, 0x1100, 2, kOneMiB).width, 2u);
        EXPECT_EQ(layoutOf(0x1000, 0x1100, 1, kOneMiB).width, 1u);
    }

    TEST(BinLayout, CountRoundsUp)
    {
        EXPECT_EQ(layoutOf(0x1000, 0x100a, 4, kOneMiB).count, 3u); // 10 bytes in 4-byte bins
        EXPECT_EQ(layoutOf(0x1000, 0x1008, 4, kOneMiB).count, 2u);
        EXPECT_EQ(layoutOf(0x1000, 0x1009, 4, kOneMiB).count, 3u);
        EXPECT_EQ(layoutOf(0x1000, 0x1001, 4, kOneMiB).count, 1u);
    }

    TEST(BinLayout, OneByteRangeFitsInOneCounter)
    {
        const BinLayout layout = layoutOf(0x1234, 0x1235, 1, 4);
        EXPECT_EQ(layout.width, 1u);
        EXPECT_EQ(layout.count, 1u);
        BinLayout untouched;
        EXPECT_FALSE(computeBinLayout(0x1234, 0x1235, 1, 3, &untouched));
    }

    TEST(BinLayout, BinOfAndAddressOf)
    {
        const BinLayout layout = layoutOf(0x1000, 0x2000, 1, 4095); // 8-byte bins
        ASSERT_EQ(layout.width, 8u);
        EXPECT_EQ(layout.binOf(0x1000), 0u);
        EXPECT_EQ(layout.binOf(0x1007), 0u);
        EXPECT_EQ(layout.binOf(0x1008), 1u);
        EXPECT_EQ(layout.binOf(0x1fff), 511u);
        EXPECT_EQ(layout.addressOf(0), 0x1000u);
        EXPECT_EQ(layout.addressOf(1), 0x1008u);
        EXPECT_EQ(layout.addressOf(511), 0x1ff8u);
        for (uint64_t bin = 0; bin < layout.count; ++bin)
            ASSERT_EQ(layout.binOf(layout.addressOf(bin) + 5), bin);
    }

    TEST(BinLayout, EmptyOrInvertedRangeIsRejected)
    {
        BinLayout layout;
        EXPECT_FALSE(computeBinLayout(0x1000, 0x1000, 1, kOneMiB, &layout));
        EXPECT_FALSE(computeBinLayout(0x2000, 0x1000, 1, kOneMiB, &layout));
    }

    TEST(BinLayout, GranularityMustBeAPowerOfTwo)
    {
        BinLayout layout;
        EXPECT_FALSE(computeBinLayout(0x1000, 0x2000, 0, kOneMiB, &layout));
        EXPECT_FALSE(computeBinLayout(0x1000, 0x2000, 3, kOneMiB, &layout));
        EXPECT_FALSE(computeBinLayout(0x1000, 0x2000, 6, kOneMiB, &layout));
        EXPECT_TRUE(computeBinLayout(0x1000, 0x2000, 8, kOneMiB, &layout));
        EXPECT_EQ(layout.width, 8u);
    }

    TEST(BinLayout, WidestBinIsTwoToThe31)
    {
        // 2^40 bytes in 2^31-byte bins is 512 counters: 2048 bytes.
        const BinLayout layout = layoutOf(0, uint64_t(1) << 40, 1, 2048);
        EXPECT_EQ(layout.width, uint32_t(1) << 31);
        EXPECT_EQ(layout.shift, 31u);
        EXPECT_EQ(layout.count, 512u);
        BinLayout tooSmall;
        EXPECT_FALSE(computeBinLayout(0, uint64_t(1) << 40, 1, 2047, &tooSmall));
        EXPECT_FALSE(computeBinLayout(0x1000, 0x1001, 1, 0, &tooSmall));
    }

    TEST(BinLayout, HugeRangeDoesNotOverflowTheCounterCount)
    {
        BinLayout layout {};
        EXPECT_FALSE(computeBinLayout(0, uint64_t(1) << 63, 1, 1024, &layout))
            << "width " << layout.width << " count " << layout.count;
        EXPECT_FALSE(computeBinLayout(0, UINT64_MAX, 1, 1024, &layout))
            << "width " << layout.width << " count " << layout.count;
    }

    TEST(BinLayout, InstructionGranularityOfTheBuildTarget)
    {
#if defined(__x86_64__) || defined(__i386__)
        EXPECT_EQ(instructionGranularity(), 1u);
#elif defined(__aarch64__)
        EXPECT_EQ(instructionGranularity(), 4u);
#else
        GTEST_SKIP() << "no expected granularity recorded for this architecture";
#endif
    }

} // namespace
} // namespace ppe
