// The collector's live profile: a mapping laid out as core's live file, counting through core's
// histogram; a forked child's copy starts with every counter zero and the same layout.
#include "live_profile.h"

#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

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

    TEST(LiveProfile, TheMappingIsLaidOutAsCoresLiveFile)
    {
        LiveProfile* live = liveFor(0x1000, 0x2000, 0x5555'0000'0000);
        LiveFileView view;
        ASSERT_EQ(readLiveFile(reinterpret_cast<const char*>(live), live->mappingSize, &view), LiveFileProblem::None);
        EXPECT_EQ(view.record, live->histogram.record);
        EXPECT_EQ(view.bins, live->histogram.bins);
        EXPECT_EQ(view.pcs, live->histogram.pcs);
        EXPECT_EQ(view.header.headerSize, sizeof(LiveProfile));
        EXPECT_EQ(live->countersOffset % size_t(sysconf(_SC_PAGESIZE)), 0u);
        EXPECT_EQ(live->histogram.runStart, 0x5555'0000'1000u);
        recordSample(live->histogram, 0x5555'0000'1234, 2);
        EXPECT_EQ(view.bins[0x234], 2u);
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

    TEST(LiveProfile, AnEmptyCloneKeepsTheRecordAndTheGeometry)
    {
        LiveProfile* live = liveFor(0x1000, 0x2000, 0x10000);
        live->histogram.record->pid = 42;
        recordSample(live->histogram, 0x11500, 4);
        LiveProfile* copy = cloneEmpty(*live, -1);
        ASSERT_NE(copy, nullptr);
        EXPECT_EQ(copy->histogram.record->pid, 42u);
        EXPECT_EQ(copy->histogram.runStart, live->histogram.runStart);
        EXPECT_EQ(copy->histogram.imageEnd, live->histogram.imageEnd);
        EXPECT_EQ(copy->histogram.bins[0x500], 0u);
        EXPECT_EQ(totalSamples(*copy->histogram.record), 0u);
        munmap(copy, copy->mappingSize);
    }

} // namespace
} // namespace ppe
