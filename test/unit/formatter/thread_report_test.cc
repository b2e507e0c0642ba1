// The per-thread rows and the blocked-time table of the report model (thread_report.h).
#include "profile_builder.h"

#include "ppe/formatter/thread_report.h"

#include <gtest/gtest.h>

#include <cmath>

namespace ppe::formatter {
namespace {

    using ppe::testing::profileWith;

    TEST(SyscallName, ByArchitecture)
    {
        EXPECT_EQ(syscallName("x86_64", 230), "clock_nanosleep");
        EXPECT_EQ(syscallName("x86_64", 202), "futex");
        EXPECT_EQ(syscallName("aarch64", 115), "clock_nanosleep");
        EXPECT_EQ(syscallName("aarch64", 98), "futex");
        EXPECT_EQ(syscallName("arc", 73), "ppoll");
        EXPECT_EQ(syscallName("x86_64", 9999), "syscall 9999");
        EXPECT_EQ(syscallName("sparc64", 1), "syscall 1");
        EXPECT_EQ(syscallName("x86_64", -1), "(not in a system call)");
        EXPECT_EQ(syscallName("x86_64", -2), "(other system calls)");
    }

    Report reportWithThreads(size_t count)
    {
        Report r;
        r.profile = profileWith({ Bin { 0x1000, 1000 } });
        r.profile.interval = 5000; // 0.5 ms
        for (size_t i = 0; i < count; ++i)
            r.profile.threads.push_back(ThreadSamples { 1000 - i, i + 1, 0.5, 0, "t" + std::to_string(i) });
        return r;
    }

    TEST(AddThreads, RowsInThreadIdOrderWithShareAndRate)
    {
        Report r = reportWithThreads(3);
        r.profile.threads[1].cpuSeconds = 0; // unknown: no rate
        addThreads(r);
        ASSERT_EQ(r.threads.size(), 3u);
        EXPECT_EQ(r.threads[0].tid, 998u);
        EXPECT_EQ(r.threads[2].tid, 1000u);
        EXPECT_EQ(r.threads[0].samples, 3u);
        EXPECT_DOUBLE_EQ(r.threads[0].percent, 0.3);
        EXPECT_DOUBLE_EQ(r.threads[0].rate, 6.0);
        EXPECT_DOUBLE_EQ(r.threads[1].rate, 0.0);
        EXPECT_EQ(r.moreThreads, 0u);
    }

    // Issue 34: a thread that only waited (no sample: a library's helper thread) comes after the
    // threads that ran, whatever its id.
    TEST(AddThreads, ThreadsThatOnlyWaitedComeAfterThoseThatRan)
    {
        Report r = reportWithThreads(3); // tids 1000, 999, 998
        r.profile.threads.push_back(ThreadSamples { 5, 0, 0, 3.5, "helper" });
        r.profile.threads.push_back(ThreadSamples { 7, 0, 0, 0, "idle" }); // no sample, no wait: in order
        addThreads(r);
        ASSERT_EQ(r.threads.size(), 5u);
        EXPECT_EQ(r.threads[0].tid, 7u);
        EXPECT_EQ(r.threads[1].tid, 998u);
        EXPECT_EQ(r.threads[3].tid, 1000u);
        EXPECT_EQ(r.threads[4].tid, 5u);
        EXPECT_TRUE(r.threads[4].helper);
        EXPECT_FALSE(r.threads[0].helper);
    }

    // Where the waits name their threads, a thread of the program that only waited (in its code) is
    // not a helper: it stays among the program's threads.
    TEST(AddThreads, AWorkerThatOnlyWaitedInTheProgramsCodeIsNoHelper)
    {
        Report r = reportWithThreads(1); // tid 1000
        r.profile.threads.push_back(ThreadSamples { 5, 0, 0, 3.5, "progress" });
        r.profile.threads.push_back(ThreadSamples { 6, 0, 0, 0.3, "worker" });
        const CodeLocation caller { CodeLocation::Kind::Image, 0, 0x1412 };
        r.profile.blocked = { BlockedPlace { 7, 3.5, 350, {}, {}, 5 }, BlockedPlace { 230, 0.3, 30, {}, caller, 6 } };
        addThreads(r);
        ASSERT_EQ(r.threads.size(), 3u);
        EXPECT_EQ(r.threads[0].tid, 6u);
        EXPECT_FALSE(r.threads[0].helper);
        EXPECT_EQ(r.threads[2].tid, 5u);
        EXPECT_TRUE(r.threads[2].helper);
    }

    TEST(AddThreads, AtMostTheBusiestRowsAndTheOthersLast)
    {
        Report r = reportWithThreads(kMaxThreadRows + 10);
        r.profile.threads.push_back(ThreadSamples { 0, 500, 0, 0, "" }); // threads the table could not hold
        r.profile.threads[0].blockedSeconds = 100; // least samples, but waited long: kept
        addThreads(r);
        ASSERT_EQ(r.threads.size(), kMaxThreadRows);
        EXPECT_EQ(r.moreThreads, 11u);
        EXPECT_EQ(r.threads.back().tid, 0u);
        EXPECT_EQ(r.threads[r.threads.size() - 2].tid, 1000u);
    }

    TEST(AddBlockedTime, SharesOfAllThreadTimeWithErrorsAndNamedPlaces)
    {
        Report r;
        r.profile = profileWith({ Bin { 0x1000, 2000 } }); // 2000 samples of 0.5 ms: 1 s running
        r.profile.interval = 5000;
        r.profile.arch = "x86_64";
        r.profile.scan = BlockingScan { 400, 0.0025, 0.01 };
        const CodeLocation site { CodeLocation::Kind::Object, 0, 0xcf545 };
        const CodeLocation caller { CodeLocation::Kind::Image, 0, 0x1412 };
        r.profile.blocked = { BlockedPlace { 7, 1.0, 100, site, {} }, BlockedPlace { 230, 2.0, 400, site, caller } };
        std::vector<CodeLocation> asked;
        addBlockedTime(r, [&](const CodeLocation& place) {
            asked.push_back(place);
            return place.kind == CodeLocation::Kind::Image ? std::string("main (a.c:3)") : std::string("");
        });
        ASSERT_TRUE(r.blocked.has_value());
        const BlockedTime& b = *r.blocked;
        EXPECT_DOUBLE_EQ(b.runningSeconds, 1.0);
        EXPECT_DOUBLE_EQ(b.blockedSeconds, 3.0);
        EXPECT_EQ(b.scans, 400u);
        ASSERT_EQ(b.rows.size(), 2u);
        EXPECT_EQ(b.rows[0].call, "clock_nanosleep"); // decreasing seconds
        EXPECT_DOUBLE_EQ(b.rows[0].percent, 50.0); // 2 of 4 thread-seconds
        EXPECT_DOUBLE_EQ(b.rows[0].error, 2.0 / 20.0);
        EXPECT_EQ(b.rows[0].caller, "main (a.c:3)");
        EXPECT_EQ(b.rows[1].call, "poll");
        EXPECT_EQ(b.rows[1].caller, "");
        EXPECT_EQ(asked.size(), 4u);
    }

    // Issue 34: the rows are grouped by thread. A thread that waited once with the program's code on
    // the stack is the program's (all its waits with it, even those without); the program's threads
    // lead, the most waited first; a thread that never did (a library's helper) comes after them.
    TEST(AddBlockedTime, GroupedByThreadWithTheProgramsThreadsFirst)
    {
        Report r;
        r.profile = profileWith({ Bin { 0x1000, 2000 } });
        r.profile.scan = BlockingScan { 400, 0.0025, 0.01 };
        r.profile.arch = "x86_64";
        r.profile.threads
            = { { 11, 2000, 1.0, 1.5, "main" }, { 12, 0, 0, 9.0, "progress" }, { 13, 0, 0, 2.0, "pool" } };
        const CodeLocation caller { CodeLocation::Kind::Image, 0, 0x1412 };
        r.profile.blocked = { BlockedPlace { 7, 9.0, 900, {}, {}, 12 }, BlockedPlace { 202, 2.0, 200, {}, caller, 13 },
            BlockedPlace { 230, 1.0, 100, {}, caller, 11 }, BlockedPlace { 7, 0.5, 50, {}, {}, 11 } };
        addBlockedTime(r, [](const CodeLocation&) { return std::string(); });
        ASSERT_TRUE(r.blocked.has_value());
        const BlockedTime& b = *r.blocked;
        EXPECT_TRUE(b.byThread);
        ASSERT_EQ(b.rows.size(), 4u);
        EXPECT_EQ(b.rows[0].tid, 13u); // 2 s waited: the program's most waited thread
        EXPECT_EQ(b.rows[0].thread, "pool");
        EXPECT_EQ(b.rows[1].tid, 11u); // 1.5 s: its two waits together, most first
        EXPECT_EQ(b.rows[1].call, "clock_nanosleep");
        EXPECT_DOUBLE_EQ(b.rows[1].threadSeconds, 1.5);
        EXPECT_EQ(b.rows[2].tid, 11u);
        EXPECT_TRUE(b.rows[2].inProgram) << "a wait of the program's thread, though no caller was found";
        EXPECT_EQ(b.rows[3].tid, 12u); // the helper, though it waited longest
        EXPECT_FALSE(b.rows[3].inProgram);
        EXPECT_DOUBLE_EQ(b.programSeconds, 3.5);
        EXPECT_DOUBLE_EQ(b.helperSeconds, 9.0);
    }

    // A tick-bound fallback takes fewer samples than asked: the running time is the active CPU time.
    TEST(AddBlockedTime, RunningTimeIsTheActiveCpuTime)
    {
        Report r;
        r.profile = profileWith({ Bin { 0x1000, 500 } });
        r.profile.interval = 5000;
        r.profile.mechanism = "itimer-prof";
        r.profile.activeTime = 2.0; // 250 samples a second, not the 2000 asked
        r.profile.scan = BlockingScan { 10, 0.1, 0.001 };
        r.profile.blocked = { BlockedPlace { 7, 2.0, 20, {}, {} } };
        addBlockedTime(r, [](const CodeLocation&) { return std::string(); });
        ASSERT_TRUE(r.blocked.has_value());
        EXPECT_DOUBLE_EQ(r.blocked->runningSeconds, 2.0);
        EXPECT_DOUBLE_EQ(r.blocked->rows[0].percent, 50.0);
    }

    TEST(AddBlockedTime, NothingWithoutAScan)
    {
        Report r;
        r.profile = profileWith({ Bin { 0x1000, 10 } });
        addBlockedTime(r, [](const CodeLocation&) { return std::string(); });
        EXPECT_FALSE(r.blocked.has_value());
    }

} // namespace
} // namespace ppe::formatter
