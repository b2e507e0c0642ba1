// The live file's layout (ppe/core/live_file.h): one description for the collector that writes it
// and the recovery that reads it back after a SIGKILL. A file laid out and filled here through the
// shared histogram is recovered by ppe --recover's code into the profile it held.
#include "memfd.h"
#include "ppe/core/histogram.h"
#include "ppe/core/live_file.h"
#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

namespace ppe {
namespace {

    constexpr uint64_t kPage = 4096;

    // A live file in memory, laid out by planLiveFile for a head of `headSize` bytes.
    struct LiveBytes {
        std::vector<uint64_t> words;
        LiveFileLayout layout;
        Histogram h;

        LiveBytes(uint64_t start, uint64_t end, uint64_t bias)
        {
            BinLayout bins;
            EXPECT_TRUE(computeBinLayout(start, end, 1, 1 << 20, &bins));
            layout = planLiveFile(256, bins.count, kPage);
            words.assign(layout.fileSize / 8, 0);
            writeLiveHeader(*reinterpret_cast<LiveFileHeader*>(bytes()), layout);
            auto* record = reinterpret_cast<ProfileRecord*>(bytes() + layout.recordOffset);
            record->layout = bins;
            record->loadBias = bias;
            h = makeHistogram(record, reinterpret_cast<uint32_t*>(bytes() + layout.binsOffset),
                reinterpret_cast<PcSlot*>(bytes() + layout.pcsOffset), start + bias, end + bias);
        }
        char* bytes() { return reinterpret_cast<char*>(words.data()); }
        uint64_t size() const { return words.size() * 8; }
    };

    TEST(LiveFile, TheLayoutPutsTheCountersOnTheirOwnPages)
    {
        const LiveFileLayout l = planLiveFile(200, 1000, kPage);
        EXPECT_EQ(l.recordOffset, 256u);
        EXPECT_EQ(l.binsOffset % kPage, 0u);
        EXPECT_GE(l.binsOffset, l.recordOffset + sizeof(ProfileRecord));
        EXPECT_EQ(l.pcsOffset, l.binsOffset + 4000 + 32) << "bins rounded up to 64 bytes";
        EXPECT_EQ(l.fileSize % kPage, 0u);
        EXPECT_GE(l.fileSize, l.pcsOffset + kPcTableSlots * sizeof(PcSlot));
    }

    TEST(LiveFile, TheProfileNameComesFromTheLiveFileName)
    {
        EXPECT_EQ(profilePathForLiveFile("/tmp/run/simp.ppe.12345.live"), "/tmp/run/simp.ppe");
        EXPECT_EQ(profilePathForLiveFile("out.7.live"), "out");
        EXPECT_EQ(profilePathForLiveFile("simp.ppe.live"), "");
        EXPECT_EQ(profilePathForLiveFile("simp.ppe.12a.live"), "");
        EXPECT_EQ(profilePathForLiveFile(".12.live"), "");
        EXPECT_EQ(profilePathForLiveFile("simp.ppe.12.liv"), "");
    }

    TEST(LiveFile, WhatIsWrittenIsReadBack)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        recordSample(live.h, 0x40'1010, 7);
        recordSample(live.h, 0x7f00'0000'0000, 2);
        LiveFileView view;
        ASSERT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::None);
        EXPECT_EQ(view.header.fileSize, live.size());
        EXPECT_EQ(view.record->layout.start, 0x1000u);
        EXPECT_EQ(view.bins[0x10], 7u);
        EXPECT_EQ(view.pcs, live.h.pcs);
    }

    TEST(LiveFile, DamagedFilesAreRefusedWithTheReason)
    {
        LiveBytes live(0x1000, 0x2000, 0);
        LiveFileView view;
        EXPECT_EQ(readLiveFile(live.bytes(), 16, &view), LiveFileProblem::NotLive);
        EXPECT_EQ(readLiveFile(live.bytes(), live.size() - kPage, &view), LiveFileProblem::Truncated);
        auto* header = reinterpret_cast<LiveFileHeader*>(live.bytes());
        header->recordSize -= 8;
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::OtherVersion);
        header->recordSize += 8;
        header->pcsOffset = header->fileSize;
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::Inconsistent);
        header->pcsOffset = live.layout.pcsOffset;
        live.h.record->layout.count = live.layout.fileSize; // more bins than the file holds
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::BinsOverflow);
        header->magic[0] = 'X';
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::NotLive);
    }

    TEST(LiveFile, ALiveFileFilledByTheHistogramIsRecoveredIntoItsProfile)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        recordSample(live.h, 0x40'1010, 7);
        recordSample(live.h, 0x40'1ffe, 1);
        recordSample(live.h, 0x40'0800, 2); // below the range
        recordSample(live.h, 0x7f00'0000'0000, 3); // outside: unknown once the process is gone
        live.h.record->startTime = 1'700'000'000;
        reinterpret_cast<LiveFileHeader*>(live.bytes())->lastSampleTime = 1'700'000'010;
        test::Memfd file;
        ASSERT_EQ(write(file.fd(), live.bytes(), live.size()), ssize_t(live.size()));
        const std::string path = "/proc/self/fd/" + std::to_string(file.fd());
        auto text = recoverLiveFile(path);
        ASSERT_TRUE(text) << text.error().str();
        auto profile = parseProfile(*text, "recovered");
        ASSERT_TRUE(profile) << profile.error().str();
        EXPECT_EQ(profile->status, ProfileStatus::Recovered);
        EXPECT_EQ(profile->total, 13u);
        EXPECT_EQ(profile->inRange(), 8u);
        ASSERT_EQ(profile->bins.size(), 2u);
        EXPECT_EQ(profile->bins[0].address, 0x1010u);
        EXPECT_EQ(profile->bins[0].count, 7u);
        EXPECT_EQ(profile->bins[1].address, 0x1ffeu);
        EXPECT_EQ(profile->endTime - profile->startTime, 10);
        EXPECT_DOUBLE_EQ(profile->wallTime, 10.0);
    }

} // namespace
} // namespace ppe
