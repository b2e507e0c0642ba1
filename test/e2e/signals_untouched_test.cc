// Issue 33: the program's signals and namespaces are its own. Each case of signals_untouched.c
// runs bare and under the collector (the launcher, each mechanism), and everything it observes —
// its output, its exit status or the signal that ended it — must be the same; where the case ends
// the program, the profile is complete as well.
#include "elf_symbols.h"
#include "profile_hits.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <vector>

namespace ppe::testing {
namespace {

    struct Case {
        const char* how;
        const char* timer; // the launcher's --timer
        const char* endReason = nullptr; // the profile's, when the case ends the program its own way
        std::vector<std::string> options = {};
    };

    void PrintTo(const Case& c, std::ostream* os) { *os << c.how << " (" << c.timer << ")"; }

    RunResult runProfiled(const Case& c, const std::string& out, const std::string& dir)
    {
        std::vector<std::string> argv { PPE_LAUNCHER, "-o", out, "--timer", c.timer };
        argv.insert(argv.end(), c.options.begin(), c.options.end());
        argv.push_back(PPE_SIGNALS_UNTOUCHED);
        argv.push_back(c.how);
        return runProgram(argv, {}, dir);
    }

    void expectSameEnding(const RunResult& profiled, const RunResult& bare)
    {
        EXPECT_EQ(profiled.out, bare.out) << profiled.err;
        EXPECT_EQ(profiled.exited, bare.exited) << profiled.err;
        EXPECT_EQ(profiled.status, bare.status) << profiled.err;
        EXPECT_EQ(profiled.signal, bare.signal) << profiled.err;
    }

    class SignalsUntouchedTest : public ::testing::TestWithParam<Case> {
    protected:
        TempDir m_dir;
    };

    TEST_P(SignalsUntouchedTest, TheProgramSeesWhatItSeesBare)
    {
        const Case& c = GetParam();
        if (std::string(c.timer) == "perf" && !perfEventsAvailable())
            GTEST_SKIP() << "perf events are refused here (perf_event_open): the perf mechanism cannot run";
        const RunResult bare = runProgram({ PPE_SIGNALS_UNTOUCHED, c.how }, { { "PPE_ON", "", true } }, m_dir.path());
        const bool unshares = std::string(c.how).find("unshare") != std::string::npos;
        if (unshares && bare.out.find(": 0") == std::string::npos && bare.out.find("returned 0") == std::string::npos)
            GTEST_SKIP() << "no user namespace for this user here, even bare: " << bare.out;
        const std::string out = m_dir.file("signals.ppe");
        const RunResult profiled = runProfiled(c, out, m_dir.path());
        expectSameEnding(profiled, bare);
        if (unshares) {
            EXPECT_NE(profiled.err.find("collector threads after unshare: 1"), std::string::npos)
                << "the collector thread is back after the call\n"
                << profiled.err;
        }
        if (!c.endReason)
            return;
        auto profile = readProfile(out);
        ASSERT_TRUE(profile) << profile.error().str() << "\n" << profiled.err;
        EXPECT_EQ(profile->status, ProfileStatus::Complete);
        EXPECT_EQ(profile->endReason, c.endReason);
        const uint64_t inWork = hitsIn(*profile, findFunction(functionSymbols(PPE_SIGNALS_UNTOUCHED), "work"));
        // About 0.1 s of CPU before the ending: 200 samples, some 25 on the scheduler tick.
        EXPECT_GT(inWork, profile->mechanism == "itimer-prof" ? 5u : 20u) << "the work before the ending was sampled";
    }

    std::vector<Case> cases()
    {
        std::vector<Case> all;
        for (const char* timer : { "auto", "perf", "itimer" }) {
            for (const char* how :
                { "restart", "ignored-hup", "mask", "nodefer", "resethand", "query", "unshare", "vfork-unshare" })
                all.push_back(Case { how, timer });
            all.push_back(Case { "snapshot-chain", timer, nullptr, { "--snapshot-signal", "USR2" } });
            all.push_back(Case { "altstack-exit", timer, "_exit" });
            all.push_back(Case { "altstack-default", timer, "signal 15" });
            all.push_back(Case { "altstack-work", timer });
            all.push_back(Case { "crash-handler", timer, "signal 11" });
        }
        return all;
    }

    INSTANTIATE_TEST_SUITE_P(Cases, SignalsUntouchedTest, ::testing::ValuesIn(cases()), [](const auto& info) {
        std::string name = std::string(info.param.how) + "_" + info.param.timer;
        for (char& c : name)
            c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
        return name;
    });

    // unshare(1) calls unshare(2) with CLONE_NEWUSER (-r maps root): `ppe unshare -Ur id` prints
    // what the bare command prints.
    TEST(UnshareCommandTest, PrintsWhatItPrintsBare)
    {
        TempDir dir;
        const RunResult bare = runProgram({ "unshare", "-Ur", "id" }, { { "PPE_ON", "", true } }, dir.path());
        if (!bare.exited || bare.status != 0)
            GTEST_SKIP() << "unshare -Ur fails here even bare (no unshare(1), or no user namespaces): " << bare.err;
        const RunResult profiled = runProgram({ PPE_LAUNCHER, "unshare", "-Ur", "id" }, {}, dir.path());
        EXPECT_EQ(profiled.out, bare.out) << profiled.err;
        EXPECT_EQ(profiled.status, 0) << profiled.err;
        EXPECT_EQ(profiled.err.find("unshare failed"), std::string::npos) << profiled.err;
    }

} // namespace
} // namespace ppe::testing
