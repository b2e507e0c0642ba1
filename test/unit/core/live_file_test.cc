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
#include <fstream>
#include <sstream>
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

    // Issue 38 (fuzz_live_file): offsets and a bin count near 2^64, whose sums wrapped to pass the
    // checks; the record, the PC table or the bins were then read far outside the file.
    TEST(LiveFile, OffsetsWhoseSumsWrapAreRefused)
    {
        LiveBytes live(0x1000, 0x2000, 0);
        LiveFileView view;
        auto* header = reinterpret_cast<LiveFileHeader*>(live.bytes());
        header->recordOffset = UINT64_MAX - 7; // + sizeof(ProfileRecord) wraps below binsOffset
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::Inconsistent);
        header->recordOffset = live.layout.recordOffset;
        header->pcsOffset = 0 - uint64_t(header->pcSlots) * sizeof(PcSlot); // the table's end wraps to 0
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::Inconsistent);
        header->pcsOffset = live.layout.pcsOffset;
        header->mapsOffset = 0 - uint64_t(header->mapsSize); // the copies' end wraps
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::Inconsistent);
        header->mapsOffset = live.layout.mapsOffset;
        ASSERT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::None);
        live.h.record->layout.count = uint64_t(1) << 62; // times 4 bytes wraps to 0
        EXPECT_EQ(readLiveFile(live.bytes(), live.size(), &view), LiveFileProblem::BinsOverflow);
    }

    TEST(LiveFile, ALiveFileFilledByTheHistogramIsRecoveredIntoItsProfile)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        recordSample(live.h, 0x40'1010, 7);
        recordSample(live.h, 0x40'1ffe, 1);
        recordSample(live.h, 0x40'0800, 2); // below the range
        recordSample(live.h, 0x7f00'0000'0000, 3); // outside: unknown once the process is gone
        live.h.record->startTime = 1'700'000'000;
        reinterpret_cast<LiveFileHeader*>(live.bytes())->lastSampleNs = 1'700'000'010'000'000'000;
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

    Result<Profile> recovered(LiveBytes& live, std::vector<std::string>* notes = nullptr)
    {
        test::Memfd file;
        EXPECT_EQ(write(file.fd(), live.bytes(), live.size()), ssize_t(live.size()));
        auto text = recoverLiveFile("/proc/self/fd/" + std::to_string(file.fd()), notes);
        if (!text)
            return text.error();
        return parseProfile(*text, "recovered");
    }

    // Issue 38 (fuzz_live_file, corpus/live_file/damaged-range-record): the record is the dead
    // process's memory; one its profile reader refuses is refused by the recovery, saying why,
    // instead of a profile ppeout then rejects at a line of a text the user never saw.
    TEST(LiveFile, ADamagedRecordIsRefusedWithTheReason)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        recordSample(live.h, 0x40'1010, 7);
        live.h.record->layout.end = live.h.record->layout.start; // an empty range
        auto p = recovered(live);
        ASSERT_FALSE(p) << "recovered a damaged record";
        EXPECT_EQ(p.error().line, 0u);
        EXPECT_NE(p.error().message.find("damaged profile record (range "), std::string::npos) << p.error().str();
    }

    // Issue 38 (corpus/live_file/build-id-size-past-the-record): the writer trusts the record's
    // build id size; 2^30 read past the copy of the record, off the end of the stack.
    TEST(LiveFile, ABuildIdSizePastTheRecordIsRefused)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        live.h.record->buildIdSize = 1u << 30;
        auto p = recovered(live);
        ASSERT_FALSE(p) << "recovered a damaged record";
        EXPECT_NE(p.error().message.find("damaged profile record (a build id of 1073741824 bytes)"), std::string::npos)
            << p.error().str();
    }

    // Issue 38 (fuzz_live_file, UBSan): a damaged usage record's rate made an active time past what
    // a uint64_t holds, converted from double regardless (undefined).
    TEST(LiveFile, AnImpossibleUsageRecordKeepsTheActiveTimeInRange)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        std::strcpy(live.h.record->mechanism, "itimer-prof");
        live.h.record->saturated = uint64_t(1) << 62; // samples counted
        auto* header = reinterpret_cast<LiveFileHeader*>(live.bytes());
        header->usage[0] = LiveUsage { 0, 0, UINT64_MAX, 50, 0, 0, 0, 0 }; // 2^64 ns for the first 50
        header->usageCurrent = 0;
        std::vector<std::string> notes;
        auto p = recovered(live, &notes);
        ASSERT_TRUE(p) << p.error().str();
        EXPECT_DOUBLE_EQ(p->activeTime, 1.8e13) << "the largest active time recovery writes, in s";
    }

    uint32_t addPath(LiveMappings& maps, const char* path)
    {
        const uint32_t at = maps.pathUsed;
        std::strcpy(maps.paths + at, path);
        maps.pathUsed += uint32_t(std::strlen(path) + 1);
        return at;
    }

    // Issue 18: the collector thread keeps the executable mappings and its last usage record in the
    // live file; recovery names the outside PCs by them as the writer does, and keeps ns times.
    TEST(LiveFile, RecoveryNamesSharedObjectsAndKeepsTimesAndCpu)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        ProfileRecord& r = *live.h.record;
        std::strcpy(r.image, "/bin/prog");
        r.mode = uint32_t(SampleMode::Real);
        std::strcpy(r.mechanism, "posix-timer"); // the rate: timer expirations per second of wall time
        r.interval = 5000;
        r.startTime = 1'700'000'000;
        auto* header = reinterpret_cast<LiveFileHeader*>(live.bytes());
        LiveMappings& maps = *liveMappings(live.bytes(), *header, 1);
        maps.pathUsed = 1;
        const uint32_t prog = addPath(maps, "/bin/prog");
        const uint32_t lib = addPath(maps, "/lib/libx.so");
        maps.mappings[0] = LiveMapping { 0x40'1000, 0x40'3000, 0x1000, prog, 0, {} };
        maps.mappings[1] = LiveMapping { 0x7f00'0000'0000, 0x7f00'0001'0000, 0x2000, lib, 2, { 0xab, 0xcd } };
        maps.mappings[2] = LiveMapping { 0x7fff'0000'0000, 0x7fff'0000'1000, 0, addPath(maps, "[vdso]"), 0, {} };
        maps.count = 3;
        header->mapsCurrent = 1;
        recordSample(live.h, 0x40'1010, 7);
        recordSample(live.h, 0x7f00'0000'0010, 3);
        recordSample(live.h, 0x7f00'0000'0020, 1);
        recordSample(live.h, 0x7fff'0000'0100, 2);
        recordSample(live.h, 0x1234, 4); // in no mapping: unknown
        r.ticks = 5500; // 2.75 s at 2000 Hz
        const int64_t start = r.startTime * 1'000'000'000;
        header->usage[0]
            = LiveUsage { start + 2'500'000'000, 2'500'000'000, 2'500'000'000, 0, 1'250'000, 10'000, 1, 0 };
        header->usageCurrent = 0;
        header->lastSampleNs = start + 2'750'000'000;
        std::vector<std::string> notes;
        auto p = recovered(live, &notes);
        ASSERT_TRUE(p) << p.error().str();
        EXPECT_EQ(p->counts[kShared], 4u);
        EXPECT_EQ(p->counts[kVdso], 2u);
        EXPECT_EQ(p->counts[kUnknown], 4u);
        ASSERT_EQ(p->objects.size(), 1u);
        EXPECT_EQ(p->objects[0].path, "/lib/libx.so");
        EXPECT_EQ(p->objects[0].buildId, "abcd");
        ASSERT_EQ(p->objects[0].hitsByOffset.size(), 2u);
        EXPECT_EQ(p->objects[0].hitsByOffset[0].fileOffset, 0x2010u);
        EXPECT_EQ(p->objects[0].hitsByOffset[0].count, 3u);
        EXPECT_DOUBLE_EQ(p->wallTime, 2.75);
        EXPECT_DOUBLE_EQ(p->activeTime, 2.75);
        EXPECT_DOUBLE_EQ(p->achievedRate, 2000.0);
        EXPECT_DOUBLE_EQ(p->cpuUser, 1.25);
        EXPECT_DOUBLE_EQ(p->cpuSystem, 0.01);
        EXPECT_EQ(p->cpuTimeAsOf, r.startTime + 2);
        ASSERT_EQ(notes.size(), 1u);
        EXPECT_EQ(notes[0],
            "CPU time as of 2023-11-14T22:13:22Z (the collector's last record, 250 ms before the last sample)");
        EXPECT_EQ(p->status, ProfileStatus::Recovered);
    }

    std::string firstLine(const char* path)
    {
        std::ifstream in(path);
        std::string line;
        std::getline(in, line);
        return line;
    }

    // The live file of a process that still runs (this one: its pid, start time and boot) is a
    // snapshot, not a killed run.
    TEST(LiveFile, TheLiveFileOfARunningProcessIsRecoveredAsStillRunning)
    {
        LiveBytes live(0x1000, 0x2000, 0x40'0000);
        live.h.record->pid = uint64_t(getpid());
        auto* header = reinterpret_cast<LiveFileHeader*>(live.bytes());
        const std::string stat = firstLine("/proc/self/stat");
        std::istringstream fields(stat.substr(stat.rfind(')') + 2));
        std::string field;
        for (int i = 3; i <= 22; ++i)
            fields >> field;
        header->startTicks = std::stoull(field);
        std::strncpy(header->bootId, firstLine("/proc/sys/kernel/random/boot_id").c_str(), sizeof(header->bootId) - 1);
        std::vector<std::string> notes;
        auto p = recovered(live, &notes);
        ASSERT_TRUE(p) << p.error().str();
        EXPECT_EQ(p->status, ProfileStatus::Checkpoint);
        EXPECT_EQ(p->endReason, "still running");
        ASSERT_FALSE(notes.empty());
        EXPECT_EQ(
            notes[0], "process " + std::to_string(getpid()) + " is still running: a snapshot of its profile so far");
        header->startTicks += 1; // another process that got the same pid
        auto other = recovered(live);
        ASSERT_TRUE(other) << other.error().str();
        EXPECT_EQ(other->status, ProfileStatus::Recovered);
        EXPECT_EQ(other->endReason, "killed");
    }

} // namespace
} // namespace ppe
