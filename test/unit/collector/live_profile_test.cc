// The collector's counters: bins saturate instead of wrapping, totals are 64-bit, PCs outside the
// range are kept per address until the table is full and then counted as lost.
#include "live_profile.h"

#include <gtest/gtest.h>

namespace ppe {
namespace {

    LiveProfile* liveFor(uint64_t start, uint64_t end, uintptr_t bias)
    {
        BinLayout layout;
        EXPECT_TRUE(computeBinLayout(start, end, 1, 1 << 20, &layout));
        LiveProfile* live = createLiveProfile(layout, bias, start + bias - 0x100, end + bias + 0x100);
        EXPECT_NE(live, nullptr);
        return live;
    }

    TEST(LiveProfile, SamplesLandInTheirBinAtLinkTimeAddresses)
    {
        LiveProfile* live = liveFor(0x1000, 0x2000, 0x5555'0000'0000);
        recordSample(live->histogram, 0x5555'0000'1234, 1);
        recordSample(live->histogram, 0x5555'0000'1234, 2);
        EXPECT_EQ(live->histogram.bins[0x234], 3u);
        EXPECT_EQ(live->histogram.record->counts[kInRange], 3u);
        recordSample(live->histogram, 0x5555'0000'0f80, 1); // in the image, below the range
        recordSample(live->histogram, 0x5555'0000'2010, 1); // above
        EXPECT_EQ(live->histogram.record->counts[kBelow], 1u);
        EXPECT_EQ(live->histogram.record->counts[kAbove], 1u);
    }

    TEST(LiveProfile, ABinSaturatesAtTheThirtyTwoBitLimitAndTheTotalsGoOn)
    {
        LiveProfile* live = liveFor(0x1000, 0x2000, 0);
        live->histogram.bins[0x10] = UINT32_MAX - 1;
        live->histogram.record->counts[kInRange] = UINT32_MAX;
        recordSample(live->histogram, 0x1010, 1);
        EXPECT_EQ(live->histogram.bins[0x10], UINT32_MAX);
        EXPECT_EQ(live->histogram.record->saturated, 0u);
        recordSample(live->histogram, 0x1010, 1);
        recordSample(live->histogram, 0x1010, 5);
        EXPECT_EQ(live->histogram.bins[0x10], UINT32_MAX) << "never wraps";
        EXPECT_EQ(live->histogram.record->saturated, 6u);
        EXPECT_EQ(live->histogram.record->counts[kInRange], uint64_t(UINT32_MAX) + 7) << "64-bit totals";
        // A weight larger than the room left fills the bin and counts the rest as saturated.
        live->histogram.bins[0x20] = UINT32_MAX - 3;
        recordSample(live->histogram, 0x1020, 10);
        EXPECT_EQ(live->histogram.bins[0x20], UINT32_MAX);
        EXPECT_EQ(live->histogram.record->saturated, 13u);
    }

    TEST(LiveProfile, OutsidePcsAreKeptPerAddressThenCountedAsLost)
    {
        LiveProfile* live = liveFor(0x1000, 0x2000, 0);
        recordSample(live->histogram, 0x7f00'0000'1000, 1);
        recordSample(live->histogram, 0x7f00'0000'1000, 1);
        uint64_t kept = 0;
        for (uint32_t i = 0; i < kPcTableSlots; ++i)
            kept += live->histogram.pcs[i].pc == 0x7f00'0000'1000 ? live->histogram.pcs[i].count : 0;
        EXPECT_EQ(kept, 2u);
        for (uint64_t pc = 0x7e00'0000'0000; pc < 0x7e00'0000'0000 + 2 * uint64_t(kPcTableSlots); ++pc)
            recordSample(live->histogram, pc, 1);
        EXPECT_GT(live->histogram.record->counts[kLost], 0u) << "a full table counts, it does not drop";
        uint64_t stored = 0;
        for (uint32_t i = 0; i < kPcTableSlots; ++i)
            stored += live->histogram.pcs[i].count;
        EXPECT_EQ(stored + live->histogram.record->counts[kLost], 2 + 2 * uint64_t(kPcTableSlots));
    }

    TEST(LiveProfile, ClearingForAForkedChildZeroesEveryCounter)
    {
        LiveProfile* live = liveFor(0x1000, 0x2000, 0);
        recordSample(live->histogram, 0x1500, 4);
        recordSample(live->histogram, 0x9'0000'0000, 1);
        live->histogram.record->ticks = 9;
        clearCounters(*live);
        EXPECT_EQ(live->histogram.bins[0x500], 0u);
        EXPECT_EQ(live->histogram.record->counts[kInRange], 0u);
        EXPECT_EQ(live->histogram.record->ticks, 0u);
        for (uint32_t i = 0; i < kPcTableSlots; ++i)
            ASSERT_EQ(live->histogram.pcs[i].count, 0u);
        EXPECT_EQ(live->histogram.record->layout.start, 0x1000u) << "the layout stays";
    }

} // namespace
} // namespace ppe
