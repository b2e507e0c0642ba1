// Merging the profiles of many processes (issue 20): sums, re-binning to the widest width, shared
// objects and blocked places by identity, threads kept apart, refusal of another program, and the
// per-rank imbalance of the top modules.
#include "profile_builder.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/formatter/build_report.h"
#include "ppe/formatter/imbalance.h"
#include "ppe/formatter/merge_profiles.h"
#include "ppe/formatter/merged_profile.h"
#include "ppe/profile/profile_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <sys/stat.h>

namespace ppe::formatter {
namespace {

    using ppe::testing::profileWith;

    Profile process(uint64_t pid, std::vector<Bin> bins, uint32_t width = 1)
    {
        Profile p = profileWith(std::move(bins), width);
        p.pid = pid;
        p.image = "/bin/prog";
        p.buildId = "ab12";
        p.mechanism = "perf-task-clock";
        p.cpuUser = 1.5;
        p.cpuSystem = 0.5;
        p.activeTime = 2;
        p.collectorCpuTime = 0.015;
        p.wallTime = double(pid % 10);
        p.endReason = "exit";
        p.threads.push_back({ pid, p.total, 2, 0, "prog" });
        return p;
    }

    TEST(MergeProfiles, CountsAndTimesAreSummedAndTheRateIsRecomputed)
    {
        ProfileMerge merge;
        Messages messages;
        ASSERT_FALSE(merge.add(process(101, { { 0x1000, 3 }, { 0x1010, 1 } }), "a.ppe", messages));
        ASSERT_FALSE(merge.add(process(102, { { 0x1010, 2 }, { 0x1020, 5 } }), "b.ppe", messages));
        const Profile sum = merge.finish(messages);
        EXPECT_EQ(sum.total, 11u);
        EXPECT_EQ(sum.inRange(), 11u);
        ASSERT_EQ(sum.bins.size(), 3u);
        EXPECT_EQ(sum.bins[1].address, 0x1010u);
        EXPECT_EQ(sum.bins[1].count, 3u);
        EXPECT_EQ(sum.maxBin, 5u);
        EXPECT_DOUBLE_EQ(sum.cpuUser, 3.0);
        EXPECT_DOUBLE_EQ(sum.collectorCpuTime, 0.03) << "each process's collector thread, added";
        EXPECT_DOUBLE_EQ(sum.activeTime, 4.0);
        EXPECT_DOUBLE_EQ(sum.wallTime, 2.0); // the longest, not the sum
        EXPECT_DOUBLE_EQ(sum.achievedRate, 11.0 / 4.0);
        EXPECT_EQ(sum.mergedProfiles, 2u);
        EXPECT_EQ(sum.mergedPids, "101-102");
        EXPECT_EQ(sum.mergedEndReasons, "exit (2)");
        ASSERT_EQ(sum.threads.size(), 2u);
        EXPECT_EQ(sum.threads[1].name, "prog (pid 102)");
        EXPECT_TRUE(messages.empty());
    }

    TEST(MergeProfiles, NarrowBinsGoToTheWideBinHoldingTheirStart)
    {
        ProfileMerge merge;
        Messages messages;
        ASSERT_FALSE(merge.add(process(1, { { 0x1001, 2 }, { 0x1007, 1 }, { 0x1009, 4 } }, 1), "n.ppe", messages));
        ASSERT_FALSE(merge.add(process(2, { { 0x1008, 10 } }, 8), "w.ppe", messages));
        const Profile sum = merge.finish(messages);
        EXPECT_EQ(sum.binWidth, 8u);
        EXPECT_EQ(sum.binCount, 0x1000u / 8);
        ASSERT_EQ(sum.bins.size(), 2u);
        EXPECT_EQ(sum.bins[0].address, 0x1000u);
        EXPECT_EQ(sum.bins[0].count, 3u);
        EXPECT_EQ(sum.bins[1].count, 14u);
        EXPECT_EQ(sum.total, 17u);
        ASSERT_EQ(messages.size(), 1u);
        EXPECT_NE(messages[0].text.find("bins of 1, 8 bytes: merged in bins of 8 bytes"), std::string::npos)
            << messages[0].text;
    }

    TEST(MergeProfiles, AnotherProgramIsRefusedNamingBothFiles)
    {
        ProfileMerge merge;
        Messages messages;
        ASSERT_FALSE(merge.add(process(1, { { 0x1000, 1 } }), "a.ppe", messages));
        Profile other = process(2, { { 0x1000, 1 } });
        other.buildId = "cd34";
        const auto error = merge.add(other, "b.ppe", messages);
        ASSERT_TRUE(error);
        EXPECT_EQ(error->file, "b.ppe");
        EXPECT_NE(error->message.find("a.ppe"), std::string::npos) << error->message;
        EXPECT_NE(error->message.find("build id cd34"), std::string::npos) << error->message;
    }

    TEST(MergeProfiles, SharedObjectsAndBlockedPlacesMergeByIdentity)
    {
        Profile a = process(1, { { 0x1000, 1 } });
        a.objects = { { "/lib/libm.so.6", "ff", 3, { { 0x10, 1 }, { 0x20, 2 } } } };
        a.blocked = { { 0, 1.0, 10, { CodeLocation::Kind::Object, 0, 0x20 }, {}, 5 },
            { 0, 0.5, 5, { CodeLocation::Kind::Object, 0, 0x20 }, {}, 6 } }; // two of its threads

        Profile b = process(2, { { 0x1000, 1 } });
        b.objects = { { "/lib/libc.so.6", "ee", 1, { { 0x5, 1 } } }, { "/lib/libm.so.6", "ff", 4, { { 0x20, 4 } } } };
        b.blocked = { { 0, 3.0, 30, { CodeLocation::Kind::Object, 1, 0x20 }, {}, 5 } }; // tid 5 of another process
        ProfileMerge merge;
        Messages messages;
        ASSERT_FALSE(merge.add(a, "a.ppe", messages));
        ASSERT_FALSE(merge.add(b, "b.ppe", messages));
        const Profile sum = merge.finish(messages);
        ASSERT_EQ(sum.objects.size(), 2u);
        EXPECT_EQ(sum.objects[0].hits, 7u);
        ASSERT_EQ(sum.objects[0].hitsByOffset.size(), 2u);
        EXPECT_EQ(sum.objects[0].hitsByOffset[1].count, 6u);
        ASSERT_EQ(sum.blocked.size(), 1u) << "libm+0x20 in both, though libm is object 1 of b";
        EXPECT_DOUBLE_EQ(sum.blocked[0].seconds, 4.5);
        EXPECT_EQ(sum.blocked[0].observations, 45u);
        EXPECT_EQ(sum.blocked[0].tid, 0u) << "a sum of processes keeps places, not thread ids";
    }

    // A profile file with just the fields the reader needs, of process `pid`.
    void writeMinimalProfile(const std::string& path, uint64_t pid)
    {
        std::ofstream(path) << "ppe-profile 1\nproducer \"test\"\nstatus complete\nhost \"h\"\narch \"x86_64\"\n"
                            << "pid " << pid << "\nstart-time 2026-11-23T01:16:07Z\nend-time 2026-11-23T01:16:08Z\n"
                            << "image \"/bin/prog\"\nbuild-id ab12\ncommand \"prog\"\nload-bias 0x0\n"
                            << "range 0x1000 0x1100\nmechanism \"test\"\nmode 1 cpu\ninterval 5000\nbin-width 1\n"
                            << "bin-count 256\ncount in-range 1\ncount total 1\nbin 0x1000 1\nend\n";
    }

    // In a directory or a pattern, a live file whose process wrote its profile is left out (with a
    // note), and one without it (a process killed first) is kept, with a warning naming it.
    TEST(MergeProfiles, ALiveFileIsLeftOutBesideItsProfileAndKeptWithoutIt)
    {
        const ppe::testing::TempDir dir;
        writeMinimalProfile(dir.file("p.rank0.ppe"), 10);
        writeMinimalProfile(dir.file("p.rank1.ppe"), 11);
        std::ofstream(dir.file("p.rank1.ppe.11.live")) << "left behind";
        std::ofstream(dir.file("p.rank2.ppe.12.live")) << "killed";
        writeMinimalProfile(dir.file("p.rank3.ppe"), 30); // an older run's: pid 30, not 13
        std::ofstream(dir.file("p.rank3.ppe.13.live")) << "killed";
        std::ofstream(dir.file("notes.txt")) << "not a profile";
        for (const std::string& argument : { dir.path(), dir.path() + "/p.*" }) {
            Messages messages;
            const auto files = profileFiles(argument, &messages);
            ASSERT_TRUE(files) << files.error().str();
            const std::vector<std::string> expected { dir.file("p.rank0.ppe"), dir.file("p.rank1.ppe"),
                dir.file("p.rank2.ppe.12.live"), dir.file("p.rank3.ppe"), dir.file("p.rank3.ppe.13.live") };
            EXPECT_EQ(*files, expected) << argument;
            ASSERT_EQ(messages.size(), 3u) << argument;
            EXPECT_EQ(messages[0].kind, Message::Kind::Note);
            EXPECT_EQ(messages[0].text,
                dir.file("p.rank1.ppe.11.live") + ": left out: its process wrote its profile, "
                    + dir.file("p.rank1.ppe"));
            EXPECT_EQ(messages[1].kind, Message::Kind::Warning);
            EXPECT_NE(messages[1].text.find(dir.file("p.rank2.ppe.12.live") + ": a process that did not write"),
                std::string::npos)
                << messages[1].text;
            EXPECT_NE(messages[1].text.find("ppe --recover"), std::string::npos) << messages[1].text;
            EXPECT_EQ(messages[2].kind, Message::Kind::Warning);
        }
        // A live file named alone is the user's choice: no note, nothing left out.
        Messages messages;
        const auto alone = profileFiles(dir.file("p.rank1.ppe.11.live"), &messages);
        ASSERT_TRUE(alone);
        EXPECT_EQ(alone->size(), 1u);
        EXPECT_TRUE(messages.empty());
    }

    // Issue 34: a directory merge says what it skipped of the files named like profiles, one note
    // a kind with the files and the reason; files that are no profile at all go unsaid.
    TEST(MergeProfiles, ADirectoryMergeSaysWhatItSkippedAndWhy)
    {
        const ppe::testing::TempDir dir;
        writeMinimalProfile(dir.file("c.40.ppe"), 40);
        writeMinimalProfile(dir.file("c.40.ppe.~1~"), 40); // a and b of an exec chain a -> b -> c
        writeMinimalProfile(dir.file("c.40.ppe.~2~"), 40);
        std::ofstream(dir.file(".ppe-00000000000000ab.tmp")) << "being written";
        std::ofstream(dir.file("c.40.ppe.orig")) << "a copy";
        std::ofstream(dir.file("c.40.ppe.~x~")) << "not a numbered backup";
        std::ofstream(dir.file("notes.txt")) << "not a profile";
        Messages messages;
        const auto files = profileFiles(dir.path(), &messages);
        ASSERT_TRUE(files) << files.error().str();
        EXPECT_EQ(*files, std::vector<std::string> { dir.file("c.40.ppe") });
        ASSERT_EQ(messages.size(), 3u);
        for (const Message& m : messages) {
            EXPECT_EQ(m.kind, Message::Kind::Note) << m.text;
            EXPECT_TRUE(m.text.starts_with(dir.path() + ": ")) << m.text;
            EXPECT_EQ(m.text.find("notes.txt"), std::string::npos) << m.text;
        }
        EXPECT_NE(messages[0].text.find("2 file(s) skipped (c.40.ppe.~1~, c.40.ppe.~2~): numbered backups"),
            std::string::npos)
            << messages[0].text;
        EXPECT_NE(
            messages[1].text.find("1 file(s) skipped (.ppe-00000000000000ab.tmp): temporary files"), std::string::npos)
            << messages[1].text;
        EXPECT_NE(messages[2].text.find("2 file(s) skipped (c.40.ppe.orig, c.40.ppe.~x~): not named NAME.ppe"),
            std::string::npos)
            << messages[2].text;
    }

    TEST(MergeProfiles, NumbersAreSummarisedInRanges)
    {
        EXPECT_EQ(summariseNumbers({ 7, 3, 4, 5, 9 }), "3-5, 7, 9");
        EXPECT_EQ(summariseNumbers({ 1, 3, 5, 7 }, 2), "1, 3 and 2 more");
        // A merge of merged files reads their texts back: ranges joined, the unsaid ones counted.
        std::vector<std::pair<uint64_t, uint64_t>> ranges;
        size_t unsaid = 0;
        readRanges("1-3, 7 and 4 more", ranges, unsaid);
        readRanges("4-6, 9", ranges, unsaid);
        EXPECT_EQ(summariseRanges(ranges, unsaid), "1-7, 9 and 4 more");
        EXPECT_EQ(summariseRanges(ranges, unsaid, 1), "1-7 and 5 more");
    }

    TEST(Imbalance, TheRankWithTheLargestShareOfAModuleIsNamed)
    {
        // Two modules, [0x1000, 0x1100) and [0x1100, 0x1200); rank 2 spends 80% in the second.
        const std::vector<CodeModule> modules
            = { { "first", { { 0x1000, 0x1100 } } }, { "second", { { 0x1100, 0x1200 } } } };
        std::map<std::string, Profile> files;
        for (uint64_t rank = 0; rank < 3; ++rank) {
            Profile p = process(100 + rank, { { 0x1000, rank == 2 ? 20u : 50u }, { 0x1100, rank == 2 ? 80u : 50u } });
            p.rank = rank;
            files["r" + std::to_string(rank)] = p;
        }
        ProfileMerge merge;
        Messages messages;
        for (const auto& [name, p] : files)
            ASSERT_FALSE(merge.add(p, name, messages));
        Report report = buildReport(merge.finish(messages), modules);
        addImbalance(
            report, modules, { "r0", "r1", "r2" },
            [&](const std::string& name) -> Result<Profile> { return files.at(name); }, messages);
        ASSERT_TRUE(report.imbalance);
        const Imbalance& im = *report.imbalance;
        EXPECT_EQ(im.ranks, 3u);
        EXPECT_FALSE(im.ranksFromOrder);
        ASSERT_EQ(im.modules.size(), 2u);
        EXPECT_EQ(im.modules[0].name, "second");
        EXPECT_EQ(im.modules[0].maxRank, 2u);
        EXPECT_DOUBLE_EQ(im.modules[0].maxPercent, 80.0);
        EXPECT_DOUBLE_EQ(im.modules[0].minPercent, 50.0);
        EXPECT_DOUBLE_EQ(im.modules[0].meanPercent, 60.0);
        EXPECT_NEAR(im.modules[0].variation, std::sqrt(200.0) / 60.0, 1e-9);
        ASSERT_EQ(im.rows.size(), 3u);
        EXPECT_EQ(im.rows[2].rank, 2u);
        EXPECT_EQ(im.rows[2].samples, 100u);
        EXPECT_DOUBLE_EQ(im.rows[0].userPercent, 75.0);
    }

    // The max rank is the rank of the largest share, as documented, not the rank that spent the
    // most time in the module: rank 0 has 400 of its 1000 hits there (40 %), rank 1 80 of its 100
    // (80 %).
    TEST(Imbalance, TheMaxRankIsTheLargestShareNotTheMostHits)
    {
        const std::vector<CodeModule> modules
            = { { "first", { { 0x1000, 0x1100 } } }, { "second", { { 0x1100, 0x1200 } } } };
        std::map<std::string, Profile> files;
        files["r0"] = process(100, { { 0x1000, 600 }, { 0x1100, 400 } });
        files["r0"].rank = 0;
        files["r1"] = process(101, { { 0x1000, 20 }, { 0x1100, 80 } });
        files["r1"].rank = 1;
        ProfileMerge merge;
        Messages messages;
        for (const auto& [name, p] : files)
            ASSERT_FALSE(merge.add(p, name, messages));
        Report report = buildReport(merge.finish(messages), modules);
        addImbalance(
            report, modules, { "r0", "r1" }, [&](const std::string& name) -> Result<Profile> { return files.at(name); },
            messages);
        ASSERT_TRUE(report.imbalance);
        const Imbalance& im = *report.imbalance;
        ASSERT_EQ(im.modules.size(), 2u);
        EXPECT_EQ(im.modules[0].name, "first"); // 620 hits against 480
        EXPECT_EQ(im.modules[0].maxRank, 0u); // 60 % against 20 %
        EXPECT_EQ(im.modules[1].name, "second");
        EXPECT_DOUBLE_EQ(im.modules[1].hits, 480.0);
        EXPECT_EQ(im.modules[1].maxRank, 1u) << "80 % of rank 1's hits, though rank 0 has 400 hits there to its 80";
        EXPECT_DOUBLE_EQ(im.modules[1].maxPercent, 80.0);
        EXPECT_DOUBLE_EQ(im.modules[1].minPercent, 40.0);
        EXPECT_DOUBLE_EQ(im.modules[1].meanPercent, 60.0);
    }

    TEST(Imbalance, ManyRanksShowTheHeaviestAndTheLightestAndRanksWithoutARecordAreCounted)
    {
        const std::vector<CodeModule> modules = { { "only", { { 0x1000, 0x2000 } } } };
        std::map<std::string, Profile> files;
        std::vector<std::string> names;
        for (uint64_t i = 0; i < 25; ++i) {
            names.push_back(fmt::format("f{:02}", i));
            files[names.back()] = process(200 + i, { { 0x1000, 10 + i } }); // no rank record
        }
        ProfileMerge merge;
        Messages messages;
        for (const std::string& name : names)
            ASSERT_FALSE(merge.add(files.at(name), name, messages));
        Report report = buildReport(merge.finish(messages), modules);
        addImbalance(
            report, modules, names, [&](const std::string& name) -> Result<Profile> { return files.at(name); },
            messages);
        ASSERT_TRUE(report.imbalance);
        const Imbalance& im = *report.imbalance;
        EXPECT_TRUE(im.ranksFromOrder);
        ASSERT_EQ(im.rows.size(), kImbalanceRankRows);
        EXPECT_EQ(im.hiddenRanks, 25 - kImbalanceRankRows);
        EXPECT_EQ(im.hiddenAfter, kImbalanceRankRows / 2);
        EXPECT_EQ(im.rows.front().rank, 24u); // the heaviest: the last file, the 25th
        EXPECT_EQ(im.rows.front().samples, 34u);
        EXPECT_EQ(im.rows.back().rank, 0u);
        EXPECT_DOUBLE_EQ(im.meanSamples, 22.0);
    }

    // Rank `i` of a made-up job: bins over two modules' boundary in widths 1 and 4, a shared
    // object, a blocked place, a thread, and end reasons of two kinds.
    Profile rankProfile(uint64_t i)
    {
        std::vector<Bin> bins;
        const uint32_t width = i % 3 == 0 ? 4 : 1;
        for (uint64_t a = 0x10f0; a < 0x1110; a += width)
            bins.push_back({ a, 1 + (a + i) % 5 });
        Profile p = process(1000 + i, std::move(bins), width);
        p.rank = i;
        p.endReason = i % 4 ? "exit" : "signal 15";
        p.objects = { { "/lib/libm.so.6", "ff", 2 + i, { { 0x20, 2 + i } } } };
        p.counts[kShared] = 2 + i;
        p.total += 2 + i;
        p.blocked = { { 7, 0.25 * double(i), i, { CodeLocation::Kind::Object, 0, 0x20 }, {}, 1000 + i } };
        return p;
    }

    Result<Profile> mergeOf(
        const std::vector<std::string>& names, const std::map<std::string, Profile>& files, Messages& messages)
    {
        return mergeProfileFiles(
            names, [&](const std::string& name) -> Result<Profile> { return files.at(name); }, messages);
    }

    // A merge written with --merge-out's text and read back, as a later merge reads it.
    Profile writtenAndRead(Profile sum)
    {
        Messages messages;
        const Result<std::string> text = mergedProfileText(std::move(sum), messages);
        EXPECT_TRUE(text) << (text ? "" : text.error().str());
        Result<Profile> back = parseProfile(text ? *text : "", "part.ppe");
        EXPECT_TRUE(back) << (back ? "" : back.error().str());
        return back ? *back : Profile {};
    }

    // A merge node by node (two parts written as .ppe files), then of the parts, has the sums and
    // the module table of the merge of all the files at once.
    TEST(MergeProfiles, ATwoLevelMergeOfWrittenPartsEqualsTheOneLevelMerge)
    {
        std::map<std::string, Profile> files;
        std::vector<std::string> all, first, second;
        for (uint64_t i = 0; i < 12; ++i) {
            const std::string name = fmt::format("r{:02}", i);
            files[name] = rankProfile(i);
            all.push_back(name);
            (i < 5 ? first : second).push_back(name);
        }
        Messages messages;
        const Result<Profile> one = mergeOf(all, files, messages);
        ASSERT_TRUE(one);
        std::map<std::string, Profile> parts;
        parts["a.ppe"] = writtenAndRead(*mergeOf(first, files, messages));
        parts["b.ppe"] = writtenAndRead(*mergeOf(second, files, messages));
        EXPECT_EQ(parts["a.ppe"].mergedProfiles, 5u);
        Messages again;
        const Result<Profile> two = mergeOf({ "a.ppe", "b.ppe" }, parts, again);
        ASSERT_TRUE(two);
        EXPECT_EQ(two->mergedProfiles, 12u) << "the processes, not the parts";
        EXPECT_EQ(two->mergedEndReasons, one->mergedEndReasons);
        EXPECT_EQ(two->mergedPids, "1000-1011") << "the parts' ranges joined";
        EXPECT_EQ(two->counts, one->counts);
        EXPECT_EQ(two->binWidth, one->binWidth);
        ASSERT_EQ(two->bins.size(), one->bins.size());
        for (size_t i = 0; i < one->bins.size(); ++i)
            EXPECT_TRUE(two->bins[i].address == one->bins[i].address && two->bins[i].count == one->bins[i].count);
        ASSERT_EQ(two->objects.size(), 1u);
        EXPECT_EQ(two->objects[0].hits, one->objects[0].hits);
        ASSERT_EQ(two->blocked.size(), 1u);
        EXPECT_NEAR(two->blocked[0].seconds, one->blocked[0].seconds, 1e-9);
        EXPECT_NEAR(two->cpuUser, one->cpuUser, 1e-6);
        EXPECT_NEAR(two->achievedRate, one->achievedRate, 1e-3);
        ASSERT_EQ(two->threads.size(), one->threads.size());
        EXPECT_EQ(two->threads.back().name, one->threads.back().name) << "named once, by the first merge";
        const std::vector<CodeModule> modules
            = { { "first", { { 0x1000, 0x1100 } } }, { "second", { { 0x1100, 0x1200 } } } };
        const Report r1 = buildReport(*one, modules), r2 = buildReport(*two, modules);
        ASSERT_EQ(r1.modules.size(), r2.modules.size());
        for (size_t m = 0; m < r1.modules.size(); ++m) {
            EXPECT_EQ(r1.modules[m].name, r2.modules[m].name);
            EXPECT_DOUBLE_EQ(r1.modules[m].hits, r2.modules[m].hits);
            EXPECT_DOUBLE_EQ(r1.modules[m].percent, r2.modules[m].percent);
        }
        ASSERT_FALSE(again.empty());
        EXPECT_NE(again.back().text.find("merges themselves"), std::string::npos) << again.back().text;
    }

    // --merge-out's writer keeps what the reader read: a real profile written, read back and
    // written again gives the same text, and the fields a report uses are the original's.
    TEST(MergeProfiles, AWrittenProfileReadsBackAsItWas)
    {
        const Result<Profile> original = readProfile(std::string(PPE_REPORT_DATA) + "/ktest.ppe");
        ASSERT_TRUE(original) << original.error().str();
        Profile p = *original;
        p.threads = { { 7, 3, 0.25, 1.5, "a \"quoted\"\tname\x01" } };
        p.blocked
            = { { 202, 1.5, 12, { CodeLocation::Kind::Object, 1, 0x20 }, { CodeLocation::Kind::Image, 0, 0x40 }, 7 } };
        p.scan = BlockingScan { 12, 0.125, 0.001 };
        Messages messages;
        const Result<std::string> text = mergedProfileText(p, messages);
        ASSERT_TRUE(text);
        const Result<Profile> back = parseProfile(*text, "back.ppe");
        ASSERT_TRUE(back) << back.error().str() << "\n" << *text;
        EXPECT_EQ(*mergedProfileText(*back, messages), *text);
        EXPECT_EQ(back->command, p.command);
        EXPECT_EQ(back->counts, p.counts);
        EXPECT_EQ(back->bins.size(), p.bins.size());
        EXPECT_EQ(back->codeSections.size(), p.codeSections.size());
        ASSERT_EQ(back->objects.size(), p.objects.size());
        EXPECT_EQ(back->objects[1].hitsByOffset.size(), p.objects[1].hitsByOffset.size());
        EXPECT_EQ(back->startTime, p.startTime);
        EXPECT_DOUBLE_EQ(back->cpuUser, p.cpuUser);
        EXPECT_EQ(back->threads[0].name, p.threads[0].name);
        EXPECT_EQ(back->blocked[0].caller.address, 0x40u);
        EXPECT_EQ(back->rank, p.rank);
    }

    // perf-ring's throttle records are summed, and known for the sum only when every file knew
    // them (a profile from before issue 35 says nothing of them); a merged file keeps them.
    TEST(MergeProfiles, ThrottlesAreSummedAndWrittenWhenEveryFileCountedThem)
    {
        std::vector<Profile> ranks;
        for (uint64_t i = 0; i < 3; ++i) {
            ranks.push_back(rankProfile(i));
            ranks.back().mechanism = "perf-ring";
            ranks.back().ringThrottled = i + 1;
            ranks.back().ringThrottledKnown = i < 2;
        }
        ProfileMerge merge;
        Messages messages;
        ASSERT_FALSE(merge.add(ranks[0], "r0", messages));
        ASSERT_FALSE(merge.add(ranks[1], "r1", messages));
        const Profile known = writtenAndRead(merge.finish(messages));
        EXPECT_TRUE(known.ringThrottledKnown);
        EXPECT_EQ(known.ringThrottled, 3u);
        for (const Profile& p : ranks)
            ASSERT_FALSE(merge.add(p, "r", messages));
        const Profile unknown = merge.finish(messages);
        EXPECT_FALSE(unknown.ringThrottledKnown) << "r2 did not count them";
        EXPECT_FALSE(writtenAndRead(unknown).ringThrottledKnown);
    }

    // Files are read on several threads and added in order: the sum, the skipped file and the
    // messages are those of adding one file after the other.
    TEST(MergeProfiles, AMergeOnManyThreadsEqualsOneFileAfterTheOther)
    {
        std::map<std::string, Profile> files;
        std::vector<std::string> names;
        for (uint64_t i = 0; i < 200; ++i) {
            names.push_back(fmt::format("r{:03}", i));
            files[names.back()] = rankProfile(i);
            files[names.back()].mechanism = i % 50 == 7 ? "itimer-prof" : "perf-task-clock"; // a warning each
        }
        auto read = [&](const std::string& name) -> Result<Profile> {
            if (name == "r100")
                return Error { name, 3, "damaged" };
            return files.at(name);
        };
        Messages parallel;
        const Result<Profile> sum = mergeProfileFiles(names, read, parallel);
        ASSERT_TRUE(sum);
        ProfileMerge merge;
        Messages sequential;
        for (const std::string& name : names) {
            if (name == "r100")
                addWarning(sequential, "r100:3: damaged (skipped: the merge goes on without it; --strict stops)");
            else
                ASSERT_FALSE(merge.add(files.at(name), name, sequential));
        }
        const Profile expected = merge.finish(sequential);
        ASSERT_EQ(parallel.size(), sequential.size());
        for (size_t i = 0; i < parallel.size(); ++i)
            EXPECT_EQ(parallel[i].text, sequential[i].text);
        EXPECT_EQ(sum->skippedProfiles, std::vector<std::string> { "r100" });
        EXPECT_EQ(sum->counts, expected.counts);
        EXPECT_EQ(sum->bins.size(), expected.bins.size());
        EXPECT_DOUBLE_EQ(sum->cpuUser, expected.cpuUser);
        ASSERT_EQ(sum->threads.size(), expected.threads.size());
        for (size_t i = 0; i < sum->threads.size(); ++i)
            EXPECT_EQ(sum->threads[i].name, expected.threads[i].name);
    }

    // The imbalance takes each rank's module shares without building its report: the same hits
    // as buildReport's, bins straddling a module boundary included.
    TEST(Imbalance, ModuleHitsAreThoseOfTheRanksOwnReport)
    {
        const std::vector<CodeModule> modules
            = { { "a", { { 0x1000, 0x1102 } } }, { "b", { { 0x1102, 0x1105 } } }, { "c", { { 0x1108, 0x1200 } } } };
        const std::vector<CodePiece> pieces = modulePieces(modules);
        for (uint64_t i = 0; i < 12; ++i) {
            const Profile p = rankProfile(i);
            const std::vector<double> hits = moduleHits(p, pieces, modules.size());
            const Report r = buildReport(p, modules);
            for (const ModuleRow& row : r.modules)
                EXPECT_DOUBLE_EQ(hits[row.module], row.hits) << modules[row.module].name << " of rank " << i;
        }
    }

    std::string fileText(const std::string& path)
    {
        std::ifstream in(path);
        return std::string(std::istreambuf_iterator<char>(in), {});
    }

    // ppeout --merge-out writes the merge as a .ppe that ppeout reads as a merge; an existing file
    // of that name is kept as NAME.~1~, and one that is also an input is refused.
    TEST(MergeProfiles, MergeOutWritesAProfileKeepsTheOldOneAndNeverItsInput)
    {
        ppe::testing::TempDir dir;
        ::mkdir(dir.file("run").c_str(), 0700);
        for (uint64_t pid = 11; pid <= 13; ++pid)
            writeMinimalProfile(dir.file(fmt::format("run/p{}.ppe", pid)), pid);
        const std::string out = dir.file("merged.ppe");
        for (int i = 0; i < 2; ++i) {
            const auto r = ppe::testing::runProgram({ PPEOUT, "--merge-out", out, dir.file("run") });
            ASSERT_TRUE(r.exited && r.status == 0) << r.err;
        }
        EXPECT_NE(fileText(out).find("\nmerged-profiles 3\n"), std::string::npos) << fileText(out);
        EXPECT_EQ(fileText(out + ".~1~"), fileText(out)) << "the first merge, kept";
        const Result<Profile> merged = readProfile(out, InputOrigin::Named);
        ASSERT_TRUE(merged) << merged.error().str();
        EXPECT_EQ(merged->mergedProfiles, 3u);
        EXPECT_EQ(merged->mergedPids, "11-13");
        EXPECT_EQ(merged->total, 3u);
        const auto refused
            = ppe::testing::runProgram({ PPEOUT, "--merge-out", dir.file("run/p12.ppe"), dir.file("run") });
        EXPECT_TRUE(refused.exited && refused.status == 1);
        EXPECT_NE(refused.err.find("would replace one of its inputs"), std::string::npos) << refused.err;
    }

} // namespace
} // namespace ppe::formatter
