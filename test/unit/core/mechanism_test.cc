// The sampling mechanisms' one table (issue 38): every name a profile can carry parses to its
// mechanism and back, and a name this build does not know is Unknown yet still reads as written.
#include "golden_profile.h"

#include "ppe/core/mechanism.h"
#include "ppe/profile/profile_reader.h"
#include "ppe/profile/sampling_mechanism.h"

#include <gtest/gtest.h>

#include <string>

namespace ppe {
namespace {

    const Mechanism kKnown[] = { Mechanism::PerfTaskClock, Mechanism::ItimerProf, Mechanism::PosixTimer,
        Mechanism::PerfRing, Mechanism::GdbRemote };

    TEST(Mechanism, EveryKnownNameParsesToItsMechanism)
    {
        EXPECT_EQ(parseMechanism("perf-task-clock"), Mechanism::PerfTaskClock);
        EXPECT_EQ(parseMechanism("itimer-prof"), Mechanism::ItimerProf);
        EXPECT_EQ(parseMechanism("posix-timer"), Mechanism::PosixTimer);
        EXPECT_EQ(parseMechanism("perf-ring"), Mechanism::PerfRing);
        EXPECT_EQ(parseMechanism("gdb-remote"), Mechanism::GdbRemote);
        for (Mechanism m : kKnown)
            EXPECT_EQ(parseMechanism(mechanismName(m)), m) << mechanismName(m);
    }

    TEST(Mechanism, OtherTextIsUnknown)
    {
        for (const char* name :
            { "", "none", "unknown", "perf-", "perf-ring ", "PERF-RING", "perf-ringx", "hw-counter" })
            EXPECT_EQ(parseMechanism(name), Mechanism::Unknown) << '"' << name << '"';
        EXPECT_STREQ(mechanismName(Mechanism::None), "none");
        EXPECT_STREQ(mechanismName(Mechanism::Unknown), "unknown");
    }

    TEST(Mechanism, RulesFollowTheMechanism)
    {
        EXPECT_TRUE(countsTimerTicks(Mechanism::PosixTimer));
        EXPECT_FALSE(countsTimerTicks(Mechanism::Unknown));
        EXPECT_TRUE(samplesUserTimeOnly(Mechanism::PerfRing));
        EXPECT_TRUE(samplesUserTimeOnly(Mechanism::PerfTaskClock));
        EXPECT_FALSE(samplesUserTimeOnly(Mechanism::ItimerProf));
        EXPECT_TRUE(signalsProcessDirected(Mechanism::ItimerProf));
        EXPECT_TRUE(signalsProcessDirected(Mechanism::PosixTimer));
        EXPECT_FALSE(signalsProcessDirected(Mechanism::PerfRing));
        EXPECT_EQ(samplesTaken(Mechanism::ItimerProf, 250, 1000), 250u);
        EXPECT_EQ(samplesTaken(Mechanism::ItimerProf, 0, 1000), 1000u) << "written before the weights";
        EXPECT_EQ(samplesTaken(Mechanism::PosixTimer, 250, 1000), 1000u);
        EXPECT_EQ(samplesTaken(Mechanism::PerfRing, 0, 1000), 1000u);
    }

    TEST(Mechanism, ProfileKeepsTheTextAndParsesItOnce)
    {
        SamplingMechanism ring("perf-ring");
        EXPECT_EQ(ring.kind(), Mechanism::PerfRing);
        EXPECT_EQ(ring, "perf-ring");
        SamplingMechanism future(std::string("hw-counter-v2"));
        EXPECT_EQ(future.kind(), Mechanism::Unknown);
        EXPECT_EQ(future.name(), "hw-counter-v2");
        EXPECT_EQ(SamplingMechanism().kind(), Mechanism::Unknown);
        EXPECT_EQ(SamplingMechanism(Mechanism::ItimerProf).name(), "itimer-prof");
    }

    // The reader parses the field once; a newer collector's name reads, and is kept as written.
    TEST(Mechanism, ReaderParsesTheFieldAndKeepsAnUnknownName)
    {
        const std::string golden(test::kGoldenText);
        auto known = parseProfile(golden, "golden.ppe");
        ASSERT_TRUE(known.ok()) << known.error().message;
        EXPECT_EQ(known.value().mechanism.kind(), Mechanism::PerfTaskClock);

        std::string newer = golden;
        const std::string field = "\nmechanism \"perf-task-clock\"\n";
        ASSERT_NE(newer.find(field), std::string::npos);
        newer.replace(newer.find(field), field.size(), "\nmechanism \"hw-counter-v2\"\n");
        auto read = parseProfile(newer, "newer.ppe");
        ASSERT_TRUE(read.ok()) << read.error().message;
        EXPECT_EQ(read.value().mechanism.kind(), Mechanism::Unknown);
        EXPECT_EQ(read.value().mechanism.name(), "hw-counter-v2");
    }

} // namespace
} // namespace ppe
