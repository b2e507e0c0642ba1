// The counting rules every sampler shares (ppe/core/histogram.h): a PC lands in its bin at the
// link-time address, below or above the range in the monitored object, in the per-address table
// outside it, or is lost when that table is full; bins saturate at the 32-bit limit while the totals
// go on in 64 bits; a weight counts as that many samples.
#include "ppe/core/histogram.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace ppe {
namespace {

    // A histogram of link-time [start, end) at bias `bias`, in a monitored object that extends 0x100
    // bytes either side, owning its memory.
    struct Fixture {
        std::unique_ptr<ProfileRecord> record = std::make_unique<ProfileRecord>();
        std::vector<uint32_t> bins;
        std::vector<PcSlot> pcs = std::vector<PcSlot>(kPcTableSlots);
        Histogram h;

        Fixture(uint64_t start, uint64_t end, uint64_t bias, uint32_t granularity = 1)
        {
            EXPECT_TRUE(computeBinLayout(start, end, granularity, 1 << 20, &record->layout));
            record->loadBias = bias;
            bins.assign(record->layout.count, 0);
            h = makeHistogram(record.get(), bins.data(), pcs.data(), start + bias - 0x100, end + bias + 0x100);
        }

        uint64_t kept(uint64_t pc) const
        {
            uint64_t count = 0;
            for (const PcSlot& slot : pcs)
                count += slot.pc == pc ? slot.count : 0;
            return count;
        }
    };

    TEST(Histogram, ASampleLandsInTheBinOfItsLinkTimeAddress)
    {
        Fixture f(0x1000, 0x2000, 0x5555'0000'0000);
        EXPECT_EQ(f.h.runStart, 0x5555'0000'1000u);
        EXPECT_EQ(f.h.runLength, 0x1000u);
        recordSample(f.h, 0x5555'0000'1234, 1);
        recordSample(f.h, 0x5555'0000'1234, 2);
        EXPECT_EQ(f.bins[0x234], 3u) << "a weight counts as that many samples";
        EXPECT_EQ(f.record->counts[kInRange], 3u);
        recordSample(f.h, 0x5555'0000'1000, 1); // the first byte
        recordSample(f.h, 0x5555'0000'1fff, 1); // the last byte
        EXPECT_EQ(f.bins[0], 1u);
        EXPECT_EQ(f.bins[0xfff], 1u);
    }

    TEST(Histogram, WideBinsGatherTheirAddresses)
    {
        Fixture f(0x10000, 0x20000, 0, 4);
        ASSERT_EQ(f.record->layout.width, 4u); // 64 Ki bytes / 4 = 16 Ki bins fit in 1 MiB
        recordSample(f.h, 0x10000, 1);
        recordSample(f.h, 0x10003, 1);
        recordSample(f.h, 0x10004, 1);
        EXPECT_EQ(f.bins[0], 2u);
        EXPECT_EQ(f.bins[1], 1u);
    }

    TEST(Histogram, OutsideTheRangeButInTheObjectIsBelowOrAbove)
    {
        Fixture f(0x1000, 0x2000, 0x4000);
        recordSample(f.h, 0x4f80, 1);
        recordSample(f.h, 0x6010, 3);
        recordSample(f.h, 0x6000, 1); // one past the range's end
        EXPECT_EQ(f.record->counts[kBelow], 1u);
        EXPECT_EQ(f.record->counts[kAbove], 4u);
        EXPECT_EQ(f.record->counts[kInRange], 0u);
    }

    TEST(Histogram, ABinSaturatesAtTheThirtyTwoBitLimitAndTheTotalsGoOn)
    {
        Fixture f(0x1000, 0x2000, 0);
        f.bins[0x10] = UINT32_MAX - 1;
        f.record->counts[kInRange] = UINT32_MAX;
        recordSample(f.h, 0x1010, 1);
        EXPECT_EQ(f.bins[0x10], UINT32_MAX);
        EXPECT_EQ(f.record->saturated, 0u);
        recordSample(f.h, 0x1010, 1);
        recordSample(f.h, 0x1010, 5);
        EXPECT_EQ(f.bins[0x10], UINT32_MAX) << "never wraps";
        EXPECT_EQ(f.record->saturated, 6u);
        EXPECT_EQ(f.record->counts[kInRange], uint64_t(UINT32_MAX) + 7) << "64-bit totals";
        // A weight larger than the room left fills the bin and counts the rest as saturated.
        f.bins[0x20] = UINT32_MAX - 3;
        recordSample(f.h, 0x1020, 10);
        EXPECT_EQ(f.bins[0x20], UINT32_MAX);
        EXPECT_EQ(f.record->saturated, 13u);
    }

    TEST(Histogram, BumpBinAddsWhatFitsAndCountsTheRest)
    {
        ProfileRecord record {};
        uint32_t bin = UINT32_MAX - 2;
        bumpBin(record, bin, 2);
        EXPECT_EQ(bin, UINT32_MAX - 0u);
        EXPECT_EQ(record.saturated, 0u);
        bumpBin(record, bin, uint64_t(UINT32_MAX) + 5);
        EXPECT_EQ(bin, UINT32_MAX);
        EXPECT_EQ(record.saturated, uint64_t(UINT32_MAX) + 5);
    }

    TEST(Histogram, OutsidePcsAreKeptPerAddressThenCountedAsLost)
    {
        Fixture f(0x1000, 0x2000, 0);
        recordSample(f.h, 0x7f00'0000'1000, 1);
        recordSample(f.h, 0x7f00'0000'1000, 2);
        EXPECT_EQ(f.kept(0x7f00'0000'1000), 3u);
        for (uint64_t pc = 0x7e00'0000'0000; pc < 0x7e00'0000'0000 + 2 * uint64_t(kPcTableSlots); ++pc)
            recordSample(f.h, pc, 1);
        EXPECT_GT(f.record->counts[kLost], 0u) << "a full table counts, it does not drop";
        uint64_t stored = 0;
        for (const PcSlot& slot : f.pcs)
            stored += slot.count;
        EXPECT_EQ(stored + f.record->counts[kLost], 3 + 2 * uint64_t(kPcTableSlots));
        recordSample(f.h, 0x7f00'0000'1000, 1);
        EXPECT_EQ(f.kept(0x7f00'0000'1000), 4u) << "an address already kept still counts when the table is full";
    }

    TEST(Histogram, APcOfZeroIsLost)
    {
        Fixture f(0x1000, 0x2000, 0x10000);
        recordSample(f.h, 0, 1);
        EXPECT_EQ(f.record->counts[kLost], 1u);
    }

    TEST(Histogram, TheMappingOfAnOutsidePcNamesItsCategory)
    {
        const char* image = "/usr/bin/prog";
        EXPECT_EQ(categoryOfMapping(nullptr, image, false), kUnknown);
        EXPECT_EQ(categoryOfMapping("[vdso]", image, false), kVdso);
        EXPECT_EQ(categoryOfMapping("", image, false), kAnon);
        EXPECT_EQ(categoryOfMapping("[heap]", image, false), kAnon);
        EXPECT_EQ(categoryOfMapping("/memfd:jit (deleted)", image, false), kAnon);
        EXPECT_EQ(categoryOfMapping("/usr/lib/libc.so.6", image, false), kShared);
        EXPECT_EQ(categoryOfMapping(image, image, true), kBelow);
        EXPECT_EQ(categoryOfMapping(image, image, false), kAbove);
    }

    TEST(Histogram, SettlingMakesTheTotalsAgreeWithTheBinsAndTheTable)
    {
        Fixture f(0x1000, 0x2000, 0);
        recordSample(f.h, 0x1100, 5);
        recordSample(f.h, 0x9000'0000, 2);
        f.record->counts[kInRange] = 99; // a total that ran ahead of its bin when the process died
        f.record->counts[kShared] = 7;
        f.record->saturated = 1;
        settleCounts(*f.record, f.bins.data(), f.pcs.data(), kPcTableSlots);
        EXPECT_EQ(f.record->counts[kInRange], 6u);
        EXPECT_EQ(f.record->counts[kShared], 0u);
        EXPECT_EQ(f.record->counts[kUnknown], 2u) << "outside PCs of a dead process cannot be named";
    }

    TEST(Histogram, ClearingZeroesTheTotalsButKeepsTheLayout)
    {
        Fixture f(0x1000, 0x2000, 0);
        recordSample(f.h, 0x1100, 5);
        f.record->ticks = 3;
        f.record->saturated = 2;
        clearCounts(*f.record);
        EXPECT_EQ(totalSamples(*f.record), 0u);
        EXPECT_EQ(f.record->ticks, 0u);
        EXPECT_EQ(f.record->saturated, 0u);
        EXPECT_EQ(f.record->layout.start, 0x1000u);
        countSamples(*f.record, kVdso, 4);
        EXPECT_EQ(f.record->counts[kVdso], 4u);
    }

} // namespace
} // namespace ppe
