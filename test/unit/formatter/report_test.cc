// The report model: PPE's statistics and the attribution of bins to modules.
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/text_report.h"

#include "profile_builder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>

namespace ppe::formatter {
namespace {

    using testing::profileWith;

    TEST(Statistics, TableTwoFirstRow)
    {
        // PPE's Table 2: NTH_LLL, 5794 of 27207 hits -> 21.30 +- 0.25.
        EXPECT_EQ(
            fmt::format("{:.2f} +- {:.2f}", 100.0 * 5794 / 27207, binomialErrorPercent(5794, 27207)), "21.30 +- 0.25");
        EXPECT_EQ(fmt::format("{:.2f}", binomialErrorPercent(904, 27207)), "0.11"); // DDOTX
        EXPECT_EQ(fmt::format("{:.2f}", binomialErrorPercent(9, 27207)), "0.01"); // NTH_SPT
        EXPECT_DOUBLE_EQ(binomialErrorPercent(10, 10), 0.0);
        EXPECT_DOUBLE_EQ(binomialErrorPercent(0, 0), 0.0);
    }

    TEST(BuildReport, OrdersModulesByHitsAndAccumulatesTo100)
    {
        const std::vector<CodeModule> modules = { { "a.o", { { 0x1000, 0x1100 } } }, { "b.o", { { 0x1100, 0x1180 } } },
            { "c.o", { { 0x1180, 0x1200 } } }, { "idle.o", { { 0x1200, 0x1300 } } } };
        const Report r = buildReport(profileWith({ { 0x1010, 10 }, { 0x1110, 60 }, { 0x1190, 30 } }), modules);
        ASSERT_EQ(r.modules.size(), 3u) << "modules without hits are left out";
        EXPECT_EQ(r.modules[0].name, "b.o");
        EXPECT_EQ(r.modules[1].name, "c.o");
        EXPECT_EQ(r.modules[2].name, "a.o");
        EXPECT_DOUBLE_EQ(r.modules[0].percent, 60.0);
        EXPECT_DOUBLE_EQ(r.modules[1].accumulated, 90.0);
        EXPECT_DOUBLE_EQ(r.modules.back().accumulated, 100.0);
        EXPECT_EQ(r.modules[0].address, 0x1100u);
        EXPECT_EQ(r.modules[0].size, 0x80u);
        EXPECT_FALSE(r.splitBins);
        EXPECT_DOUBLE_EQ(r.unattributed.hits, 0.0);
        EXPECT_TRUE(r.warnings.empty());
    }

    // itimer-prof's samples stand for several intervals each (their thread's CPU time since its
    // last): the shares are of the count, their errors of the samples taken, its ticks.
    TEST(BuildReport, ErrorsAreOfTheSamplesTakenWhereEachStandsForSeveralIntervals)
    {
        const std::vector<CodeModule> modules
            = { { "a.o", { { 0x1000, 0x1100 } } }, { "b.o", { { 0x1100, 0x1200 } } } };
        Profile p = profileWith({ { 0x1010, 300 }, { 0x1110, 700 } });
        p.mechanism = SamplingMechanism(Mechanism::ItimerProf);
        p.ticks = 250; // four intervals a sample
        p.weightSquares = 250 * 4 * 4;
        EXPECT_DOUBLE_EQ(p.sampleWeight(), 4.0);
        const Report r = buildReport(p, modules);
        ASSERT_EQ(r.modules.size(), 2u);
        EXPECT_DOUBLE_EQ(r.modules[0].percent, 70.0);
        EXPECT_DOUBLE_EQ(r.modules[0].error, binomialErrorPercent(175, 250));
        EXPECT_DOUBLE_EQ(r.modules[0].error, 2 * binomialErrorPercent(700, 1000));
        // Unequal weights: 125 samples of 2 and 125 of 6 give the same 1000 intervals, but only
        // 1000² / (125 × 4 + 125 × 36) = 200 samples' worth of certainty.
        p.weightSquares = 125 * 4 + 125 * 36;
        EXPECT_DOUBLE_EQ(p.sampleWeight(), 5.0);
        EXPECT_DOUBLE_EQ(buildReport(p, modules).modules[0].error, binomialErrorPercent(140, 200));
        // Without the squares, the weights are taken as equal.
        p.weightSquares = 0;
        EXPECT_DOUBLE_EQ(p.sampleWeight(), 4.0);
        // A profile written before the weights (no ticks), or of any other mechanism: one each.
        p.ticks = 0;
        EXPECT_DOUBLE_EQ(p.sampleWeight(), 1.0);
        p.ticks = 250;
        p.mechanism = SamplingMechanism(Mechanism::PosixTimer);
        EXPECT_DOUBLE_EQ(p.sampleWeight(), 1.0);
        EXPECT_DOUBLE_EQ(buildReport(p, modules).modules[0].error, binomialErrorPercent(700, 1000));
    }

    TEST(BuildReport, ModuleWithSeveralSections)
    {
        const std::vector<CodeModule> modules
            = { { "main.o", { { 0x1000, 0x1010 }, { 0x1800, 0x1810 } } }, { "other.o", { { 0x1400, 0x1410 } } } };
        const Report r = buildReport(profileWith({ { 0x1008, 5 }, { 0x1400, 3 }, { 0x1804, 7 } }), modules);
        ASSERT_EQ(r.modules.size(), 2u);
        EXPECT_EQ(r.modules[0].name, "main.o");
        EXPECT_DOUBLE_EQ(r.modules[0].hits, 12.0);
        EXPECT_EQ(r.modules[0].size, 0x20u);
    }

    TEST(BuildReport, StraddlingBinIsSplitByBytes)
    {
        // A 16-byte bin at 0x1000: 4 bytes belong to a.o, 12 to b.o.
        const std::vector<CodeModule> modules
            = { { "a.o", { { 0x0ff0, 0x1004 } } }, { "b.o", { { 0x1004, 0x1100 } } } };
        const Report r = buildReport(profileWith({ { 0x1000, 100 } }, 16, 1), modules);
        ASSERT_EQ(r.modules.size(), 2u);
        EXPECT_EQ(r.modules[0].name, "b.o");
        EXPECT_DOUBLE_EQ(r.modules[0].hits, 75.0);
        EXPECT_DOUBLE_EQ(r.modules[1].hits, 25.0);
        EXPECT_TRUE(r.splitBins);
        EXPECT_NE(renderTextReport(r).find("split in proportion"), std::string::npos);
    }

    TEST(BuildReport, HitsWhereNoCodeIsAreCountedAndWarned)
    {
        const std::vector<CodeModule> modules = { { "a.o", { { 0x1000, 0x1010 } } } };
        const Report r = buildReport(profileWith({ { 0x1004, 90 }, { 0x1020, 10 } }), modules);
        EXPECT_DOUBLE_EQ(r.unattributed.hits, 10.0);
        EXPECT_DOUBLE_EQ(r.unattributed.percent, 10.0);
        EXPECT_DOUBLE_EQ(r.unattributed.error, binomialErrorPercent(10, 100));
        ASSERT_EQ(r.warnings.size(), 1u);
        EXPECT_NE(r.warnings[0].find("10 of 100 in-range hits"), std::string::npos) << r.warnings[0];
        EXPECT_NE(renderTextReport(r).find("(no module)"), std::string::npos);
        EXPECT_DOUBLE_EQ(r.modules[0].percent, 90.0) << "percentages stay of all in-range hits";
    }

    TEST(BuildReport, HeaderTotalsFromTheCounts)
    {
        Profile p = profileWith({ { 0x1010, 700 } });
        p.counts[kBelow] = 10;
        p.counts[kAbove] = 40;
        p.counts[kShared] = 150;
        p.counts[kVdso] = 50;
        p.counts[kAnon] = 20;
        p.counts[kUnknown] = 20;
        p.counts[kLost] = 10;
        p.total = 1000;
        p.cpuUser = 1.5;
        p.cpuSystem = 0.25;
        p.interval = 5000;
        const Report r = buildReport(p, { { "a.o", { { 0x1000, 0x1100 } } } });
        EXPECT_EQ(r.totals.system, 200u);
        EXPECT_EQ(r.totals.other, 50u);
        EXPECT_EQ(r.totals.overflow, 40u);
        EXPECT_EQ(r.totals.underflow, 10u);
        EXPECT_DOUBLE_EQ(r.totals.programPercent, 75.0) << "in range, above and below";
        EXPECT_DOUBLE_EQ(r.totals.librariesPercent, 20.0);
        EXPECT_DOUBLE_EQ(r.totals.otherPercent, 5.0);
        EXPECT_DOUBLE_EQ(r.totals.cpuSeconds, 1.75);
        // The CPU time split is getrusage's (issue 18: it was the program/libraries split).
        EXPECT_NEAR(r.totals.cpuUserPercent, 100.0 * 1.5 / 1.75, 1e-9);
        EXPECT_NEAR(r.totals.cpuSystemPercent, 100.0 * 0.25 / 1.75, 1e-9);
        EXPECT_DOUBLE_EQ(r.totals.intervalMs, 0.5);
        EXPECT_EQ(r.totals.lastAddress, 0x1fffu);
        EXPECT_EQ(r.totals.rangeBytes, 0x1000u);
        EXPECT_DOUBLE_EQ(r.modules[0].percent, 100.0) << "module percentages are of the in-range hits";
        EXPECT_EQ(renderTextReport(r).find("collector thread"), std::string::npos) << "not known: not shown";
    }

    // Issue 34: perf saw the collector thread at 0.9 % of a program's samples and the report did
    // not say. Its CPU time, when the profile has it, is the header's next line.
    TEST(BuildReport, TheCollectorThreadsOwnCpuTimeIsInTheHeader)
    {
        Profile p = profileWith({ { 0x1010, 700 } });
        p.cpuUser = 1.5;
        p.cpuSystem = 0.25;
        p.collectorCpuTime = 0.035;
        const Report r = buildReport(p, { { "a.o", { { 0x1000, 0x1100 } } } });
        EXPECT_DOUBLE_EQ(r.totals.collectorCpuSeconds, 0.035);
        const std::string text = renderTextReport(r);
        EXPECT_NE(text.find("CPU time 1.75 s, User time 85.71% System time 14.29%\nOf which the collector thread "
                            "0.035 s (2.00%)"),
            std::string::npos)
            << text;
    }

    TEST(BuildReport, NoSamplesNoDivisionByZero)
    {
        const Report r = buildReport(profileWith({}), { { "a.o", { { 0x1000, 0x1100 } } } });
        EXPECT_TRUE(r.modules.empty());
        EXPECT_DOUBLE_EQ(r.unattributed.percent, 0.0);
        EXPECT_DOUBLE_EQ(r.totals.programPercent, 0.0);
    }

    // The renderer prints the model's numbers as they are: it works none out.
    TEST(TextReport, DrawsTheModelsNumbers)
    {
        Report r = buildReport(profileWith({ { 0x1004, 90 } }), { { "a.o", { { 0x1000, 0x1010 } } } });
        r.totals.system = 123;
        r.totals.cpuUserPercent = 12.5;
        r.totals.librariesPercent = 3.25;
        r.modules[0].percent = 33.33;
        r.modules[0].error = 4.44;
        r.unattributed = Share { 7, 55.55, 6.66 };
        ObjectRow object { "/lib/libz.so", "libz.so", "", 9, 11.11, 2.22, {}, 0, 0, Share { 3, 77.77, 8.88 }, "", {},
            0 };
        r.objects.push_back(object);
        const std::string text = renderTextReport(r);
        EXPECT_NE(text.find("System count           123 |"), std::string::npos) << text;
        EXPECT_NE(text.find("User time 12.50% "), std::string::npos) << text;
        EXPECT_NE(text.find("in shared libraries 3.25%"), std::string::npos) << text;
        EXPECT_NE(text.find("a.o           33.33 +-  4.44"), std::string::npos) << text;
        EXPECT_NE(text.find("(no module)   55.55 +-  6.66                            7\n"), std::string::npos) << text;
        EXPECT_NE(text.find("libz.so                11.11 +-  2.22           9"), std::string::npos) << text;
        EXPECT_NE(text.find("(no function)        77.77 +-  8.88           3"), std::string::npos) << text;
    }

} // namespace
} // namespace ppe::formatter

namespace ppe::formatter {
namespace {

    // Issue 18: the % of all samples beside the in-range %, split rows marked with their split hits
    // and a wider error, units with several ranges marked, and the heading says which time.
    TEST(ModuleRows, AllSamplesSplitHitsAndRanges)
    {
        Profile p = testing::profileWith({ { 0x1000, 40 }, { 0x1010, 20 }, { 0x1040, 40 } }, 16);
        p.total = 200;
        // a.o owns 0x1000-0x1018 and 0x1040-0x1050; b.o 0x1018-0x1040: the bin at 0x1010 is split 8:8.
        const std::vector<CodeModule> modules
            = { { "a.o", { { 0x1000, 0x1018 }, { 0x1040, 0x1050 } } }, { "b.o", { { 0x1018, 0x1040 } } } };
        const Report r = buildReport(p, modules);
        ASSERT_EQ(r.modules.size(), 2u);
        const ModuleRow& a = r.modules[0];
        EXPECT_DOUBLE_EQ(a.hits, 90.0);
        EXPECT_DOUBLE_EQ(a.percentOfAll, 45.0) << "90 of all 200 samples";
        EXPECT_DOUBLE_EQ(a.splitHits, 10.0);
        EXPECT_EQ(a.ranges, 2u);
        EXPECT_DOUBLE_EQ(a.error, splitErrorPercent(90, 10, 100, 1.0));
        EXPECT_NEAR(a.error, std::sqrt(9.0 + 100.0 / 12.0), 1e-9) << "binomial 3.00, split 10% / sqrt(12)";
        const ModuleRow& b = r.modules[1];
        EXPECT_DOUBLE_EQ(b.splitHits, 10.0);
        EXPECT_EQ(b.ranges, 1u);
        EXPECT_FALSE(r.cpuTime);
        const std::string text = renderTextReport(r);
        EXPECT_NE(text.find("DECREASING REAL TIME"), std::string::npos) << text;
        EXPECT_NE(text.find("Time % +- error    All %   Acc %"), std::string::npos) << text;
        EXPECT_NE(text.find(fmt::format(
                      "a.o           90.00 +- {:5.2f}*   45.00   90.00          90        1000+        40", a.error)),
            std::string::npos)
            << text;
        EXPECT_NE(text.find("   * 20 hits of these rows came from bins split between modules"), std::string::npos)
            << text;
        EXPECT_NE(text.find("   + code in several address ranges"), std::string::npos) << text;
        p.mode = SampleMode::Cpu;
        EXPECT_NE(renderTextReport(buildReport(p, modules)).find("DECREASING CPU TIME"), std::string::npos);
    }

    TEST(SharedObjectRows, FunctionsFromOffsetsWithErrorsAndNotes)
    {
        Profile p = testing::profileWith({ { 0x1000, 100 } });
        p.total = 400;
        p.counts[kShared] = 300;
        p.objects.push_back(SharedObject {
            "/lib/libm.so.6", "ab12", 200, { { 0x1010, 60 }, { 0x1020, 30 }, { 0x1028, 90 }, { 0x5000, 20 } } });
        p.objects.push_back(SharedObject { "/gone/libx.so", "", 96, { { 0x10, 96 } } });
        p.objects.push_back(SharedObject { "/lib/librare.so", "", 4, { { 0x10, 4 } } });
        Report r = buildReport(p, { { "main.o", { { 0x1000, 0x1100 } } } });
        auto codeOf = [](const SharedObject& o) -> Result<ObjectCode> {
            if (o.path != "/lib/libm.so.6")
                return Error { o.path, 0, "no such file" };
            ObjectCode code;
            code.functions = { { "sqrt", { { 0x1000, 0x1018 } } }, { "exp", { { 0x1018, 0x1030 } } },
                { "log", { { 0x1030, 0x1040 } } } };
            code.addressOfOffset = [](uint64_t offset) -> std::optional<uint64_t> {
                return offset < 0x4000 ? std::optional<uint64_t>(offset) : std::nullopt;
            };
            return code;
        };
        addSharedObjects(r, codeOf, 1.5, 1);
        ASSERT_EQ(r.objects.size(), 2u) << "librare.so has 1 % of the samples, below the threshold";
        const ObjectRow& libm = r.objects[0];
        EXPECT_EQ(libm.path, "/lib/libm.so.6");
        EXPECT_EQ(libm.buildId, "ab12");
        EXPECT_DOUBLE_EQ(libm.percent, 50.0);
        EXPECT_DOUBLE_EQ(libm.error, binomialErrorPercent(200, 400));
        ASSERT_EQ(libm.functions.size(), 1u) << "the top one only";
        EXPECT_EQ(libm.functions[0].name, "exp");
        EXPECT_DOUBLE_EQ(libm.functions[0].hits, 120.0);
        EXPECT_DOUBLE_EQ(libm.functions[0].percent, 30.0);
        EXPECT_EQ(libm.functions[0].address, 0x1018u);
        EXPECT_EQ(libm.moreFunctions, 1u) << "sqrt";
        EXPECT_DOUBLE_EQ(libm.withoutFunction.hits, 20.0) << "the offset no segment loads";
        EXPECT_DOUBLE_EQ(libm.withoutFunction.percent, 5.0);
        EXPECT_DOUBLE_EQ(libm.withoutFunction.error, binomialErrorPercent(20, 400));
        EXPECT_EQ(libm.name, "libm.so.6");
        const ObjectRow& gone = r.objects[1];
        EXPECT_EQ(gone.note, "no such file");
        EXPECT_TRUE(gone.functions.empty());
        const std::string text = renderTextReport(r);
        EXPECT_NE(text.find("PPE - SHARED OBJECTS IN DECREASING TIME"), std::string::npos) << text;
        EXPECT_NE(
            text.find(
                "   1 - libm.so.6                      50.00 +-  2.50         200  /lib/libm.so.6  (build id ab12)"),
            std::string::npos)
            << text;
        EXPECT_NE(text.find("         exp                          30.00 +-  2.29         120\n"), std::string::npos)
            << text;
        // The offset no segment loads has no address: it is shown by its offset, and widens the column.
        EXPECT_NE(text.find("         offset 0x5000 in libm.so.6    5.00 +-  1.09          20\n"), std::string::npos)
            << text;
        EXPECT_NE(text.find("(1 more functions)"), std::string::npos) << text;
        EXPECT_NE(text.find("(functions unknown: no such file)"), std::string::npos) << text;
    }

    // Fewer samples than the CPU time should have given (a thread that blocks the sampling signal)
    // are said in words, with the likely reason for the mechanism.
    TEST(BuildReport, MissingSamplesAreSaidWithTheirLikelyReason)
    {
        const std::vector<CodeModule> modules = { { "a.o", { { 0x1000, 0x1100 } } } };
        Profile p = profileWith({ { 0x1010, 2000 } });
        p.requestedRate = 2000;
        p.activeTime = 2.0;
        p.cpuUser = 1.8; // the perf mechanisms sample user time only: 3600 samples expected
        p.cpuSystem = 0.2;
        p.mechanism = "perf-task-clock";
        Report r = buildReport(p, modules);
        EXPECT_DOUBLE_EQ(r.totals.expectedSamples, 3600.0);
        EXPECT_NEAR(r.totals.sampledPercent, 55.56, 0.01);
        ASSERT_EQ(r.warnings.size(), 1u);
        EXPECT_EQ(r.warnings[0],
            "only 56% of the samples the process's CPU time should have given were taken (2000 of 3600): threads "
            "that block signals are not sampled by signal mechanisms (perf-task-clock); try PPE_TIMER=ring");
        EXPECT_NE(renderTextReport(r).find("\n Samples missing: only 56%"), std::string::npos);

        p.mechanism = "itimer-prof"; // counts system time too: 4000 expected
        r = buildReport(p, modules);
        EXPECT_NE(r.totals.missingSamples.find("only 50% "), std::string::npos) << r.totals.missingSamples;
        EXPECT_NE(r.totals.missingSamples.find("scheduler tick"), std::string::npos) << r.totals.missingSamples;

        p.mechanism = "perf-ring";
        p.ringLost = 1500;
        r = buildReport(p, modules);
        EXPECT_NE(r.totals.missingSamples.find("the kernel lost 1500 samples to full ring buffers"), std::string::npos)
            << r.totals.missingSamples;
        EXPECT_NE(renderTextReport(r).find(" Ring buffers: 1500 samples lost"), std::string::npos);
        // Issue 35: no sample lost, none throttled (counted since then): short-lived threads.
        p.ringLost = 0;
        p.ringThrottledKnown = true;
        r = buildReport(p, modules);
        EXPECT_NE(r.totals.missingSamples.find("neither lost nor throttled any: threads that ran for only a few"),
            std::string::npos)
            << r.totals.missingSamples;
        p.ringThrottled = 12;
        r = buildReport(p, modules);
        EXPECT_NE(r.totals.missingSamples.find("the kernel throttled the perf events (faster than"), std::string::npos)
            << r.totals.missingSamples;
        EXPECT_NE(r.totals.missingSamples.find("(12 times)"), std::string::npos) << r.totals.missingSamples;
        p.ringThrottled = 0;
        p.ringThrottledKnown = false; // an older profile: either cause
        r = buildReport(p, modules);
        EXPECT_NE(r.totals.missingSamples.find("throttled the perf events (kernel.perf_event_max_sample_rate), or "
                                               "threads ran for only a few"),
            std::string::npos)
            << r.totals.missingSamples;

        p.mechanism = "posix-timer"; // a rate of wall time: not comparable with CPU time
        EXPECT_TRUE(buildReport(p, modules).warnings.empty());
        p.mechanism = "perf-task-clock";
        p.activeTime = 0.05; // 90 samples expected: too few to tell
        EXPECT_TRUE(buildReport(p, modules).warnings.empty());
        p.activeTime = 1.3; // 2340 expected, 85 % taken
        r = buildReport(p, modules);
        EXPECT_TRUE(r.warnings.empty());
        EXPECT_NEAR(r.totals.sampledPercent, 85.47, 0.01);
    }

    // A thread that took far fewer samples than its own CPU time should have given is named, also
    // where the process's count is whole (a process-directed signal went to another thread).
    TEST(BuildReport, AThreadWithoutItsSamplesIsNamed)
    {
        const std::vector<CodeModule> modules = { { "a.o", { { 0x1000, 0x1100 } } } };
        Profile p = profileWith({ { 0x1010, 500 } });
        p.requestedRate = 2000;
        p.activeTime = 2.0;
        p.cpuUser = 2.0;
        p.mode = SampleMode::Cpu;
        p.mechanism = "itimer-prof"; // 250 a CPU second achieved: 500 of 4000 asked
        p.threads = { { 11, 500, 1.0, 0, "main" }, { 12, 0, 1.0, 0, "pool" } };
        Report r = buildReport(p, modules);
        EXPECT_NE(
            r.totals.missingSamples.find("thread 12 \"pool\" took 0 samples for its 1.00 s of CPU time (about 250 "
                                         "expected): it blocks the sampling signal, which itimer-prof sent to "
                                         "another thread"),
            std::string::npos)
            << r.totals.missingSamples;
        EXPECT_EQ(r.totals.missingSamples.find("thread 11"), std::string::npos) << r.totals.missingSamples;

        p.threads = { { 11, 300, 1.0, 0, "main" }, { 12, 200, 1.0, 0, "pool" } }; // 80 % of its share: fine
        EXPECT_EQ(buildReport(p, modules).totals.missingSamples.find("thread"), std::string::npos);

        p.mode = SampleMode::Real; // the asked rate over its CPU time: 2000 expected of thread 12
        p.mechanism = "posix-timer";
        p.threads = { { 11, 4000, 1.0, 0, "main" }, { 12, 8, 1.0, 0, "pool" } };
        r = buildReport(p, modules);
        EXPECT_NE(r.totals.missingSamples.find("thread 12 \"pool\" took 8 samples for its 1.00 s of CPU time (about "
                                               "2000 expected)"),
            std::string::npos)
            << r.totals.missingSamples;
        EXPECT_EQ(r.totals.missingSamples.find("only "), std::string::npos) << r.totals.missingSamples;

        // The perf mechanisms sample user time only, which a thread's CPU time does not separate: not
        // judged per thread (perf-task-clock's missed threads show in the process's count).
        p.mechanism = "perf-task-clock";
        EXPECT_EQ(buildReport(p, modules).totals.missingSamples.find("thread 12"), std::string::npos);
    }

} // namespace
} // namespace ppe::formatter
