// The program's descriptors are its own under the collector (issue 33): test/e2e/descriptors.c run
// bare and under the collector (preloaded, and by the launcher) must print the same and leave the same
// files. Each case runs with the descriptor limits the suite has, and with the soft limit at 1024
// below a higher hard limit: where the hard limit leaves room the collector keeps its ring
// descriptors at or above the soft limit, where it does not (soft = hard) it keeps none at all, and
// both ways must be invisible.
#include "elf_symbols.h"
#include "profile_hits.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <sys/resource.h>
#include <unistd.h>
#include <vector>

namespace ppe::testing {
namespace {

    namespace fs = std::filesystem;

    enum class Way { Bare, Preloaded, Launcher };

    int countOf(const std::string& text, const std::string& what)
    {
        int n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
            ++n;
        return n;
    }

    // Param: the soft descriptor limit the program starts with ("" : the suite's own).
    class DescriptorsTest : public ::testing::TestWithParam<std::string> {
    protected:
        TempDir m_dir;

        void SetUp() override
        {
            if (!perfRingsAvailable())
                GTEST_SKIP() << "perf events bound to a CPU, or their rings, are refused here: perf-ring does not run";
            rlimit limit {};
            getrlimit(RLIMIT_NOFILE, &limit);
            if (!GetParam().empty() && limit.rlim_max != RLIM_INFINITY
                && limit.rlim_max < std::stoul(GetParam()) + 1100)
                GTEST_SKIP() << "the hard descriptor limit " << limit.rlim_max << " leaves no room above "
                             << GetParam();
        }

        // descriptors ARGS run `way` (in `mode`, real or cpu), in its own folder of the temporary one
        // (`name`), under the param's soft limit.
        RunResult run(Way way, const std::string& name, std::vector<std::string> args, const std::string& mode = "real")
        {
            const std::string dir = m_dir.file(name);
            fs::create_directory(dir);
            if (!GetParam().empty())
                args.insert(args.begin(), { "with-limit", GetParam(), "-" });
            args.insert(args.begin(), PPE_DESCRIPTORS);
            std::vector<EnvChange> env { { "PPE_ON", "", true }, { "LD_PRELOAD", "", true } };
            if (way == Way::Preloaded)
                env = { { "PPE_ON", "1" }, { "LD_PRELOAD", PPE_LIBRARY }, { "PPE_OUT", dir + "/" },
                    { "PPE_MODE", mode == "cpu" ? "1" : "0" } };
            if (way == Way::Launcher)
                args.insert(args.begin(), { PPE_LAUNCHER, "--mode", mode, "-o", dir + "/descriptors.ppe" });
            RunResult r = runProgram(args, env, dir);
            EXPECT_TRUE(r.exited && r.status == 0) << name << ": " << r.out << r.err;
            if (way != Way::Bare) {
                EXPECT_NE(r.err.find(", perf-ring, "), std::string::npos) << name << ": " << r.err;
            }
            return r;
        }

        // The same program bare and both ways under the collector (in `mode`): the same output (and
        // file, when `sameFile`).
        void expectUntouched(const std::vector<std::string>& args, const std::string& file = "", bool sameFile = true,
            const std::string& mode = "real")
        {
            auto withFile = [&](const std::string& name) {
                std::vector<std::string> a = args;
                if (!file.empty())
                    a.push_back(m_dir.file(name + "/" + file));
                return a;
            };
            const RunResult bare = run(Way::Bare, "bare", withFile("bare"));
            for (const auto& [way, name] :
                { std::pair { Way::Preloaded, "preloaded" }, { Way::Launcher, "launcher" } }) {
                SCOPED_TRACE(name);
                const RunResult under = run(way, name, withFile(name), mode);
                EXPECT_EQ(under.out, bare.out) << under.err;
                if (!file.empty() && sameFile) {
                    EXPECT_EQ(
                        readFile(m_dir.file(std::string(name) + "/" + file)), readFile(m_dir.file("bare/" + file)));
                }
            }
        }
    };

    // A file the program put on descriptor 512 is the forked child's to write to (the child used to
    // close 512 and open its rings there: "write error: Invalid argument").
    TEST_P(DescriptorsTest, AFileOn512IsTheForkedChildsToWrite)
    {
        expectUntouched({ "dup512" }, "text");
        EXPECT_EQ(readFile(m_dir.file("preloaded/text")), "child wrote to fd 512\nparent wrote to fd 512\n");
    }

    // close_range(3, ~0) and pipes on 512-517: the child writes into them (it used to be told
    // "child write fd 513: Invalid argument").
    TEST_P(DescriptorsTest, PipesOn512To517AfterCloseRangeReachTheParent) { expectUntouched({ "pipes" }); }

    // As many files for the child and the parent as bare: with the soft limit at 10, the rings used
    // to stay on the low numbers the program could open. In CPU-time mode: real-time mode's scans
    // of /proc/self/task open a descriptor for a moment, 100-300 times a second, which a program
    // filling its table can meet (untouched_test's lowest-descriptor case).
    TEST_P(DescriptorsTest, ALowLimitLeavesTheProgramAllItsDescriptors)
    {
        for (const std::string hard : { "-", "10" }) {
            SCOPED_TRACE("hard limit " + hard);
            expectUntouched({ "with-limit", "10", hard, "count" }, "", true, "cpu");
        }
    }

    // The program puts a file over the collector's descriptors and the collector opens its events
    // again (ppe_set): the program's file stays open and its own; the collector says so once, and
    // keeps sampling.
    TEST_P(DescriptorsTest, TheProgramsFileOverTheCollectorsDescriptorStaysItsOwn)
    {
        // Under the collector the file has a line for each of its descriptors too.
        expectUntouched({ "replace" }, "text", false);
        for (const char* way : { "preloaded", "launcher" })
            EXPECT_TRUE(readFile(m_dir.file(std::string(way) + "/text")).starts_with("program wrote to fd 512\n"));
        const RunResult r = run(Way::Preloaded, "again", { "replace", m_dir.file("again/text") });
        EXPECT_EQ(r.out, "status 0\n");
        // With room above the soft limit the collector kept descriptors there, which the program took.
        const int said = countOf(r.err, "the program closed or replaced the collector's descriptor");
        EXPECT_EQ(said, GetParam().empty() ? said : 1) << r.err;
        EXPECT_LE(said, 1) << r.err;
        int profiles = 0;
        for (const auto& entry : fs::directory_iterator(m_dir.file("again")))
            if (entry.path().extension() == ".ppe" && entry.path().filename().string().starts_with("descriptors")) {
                auto p = readProfile(entry.path().string());
                ASSERT_TRUE(p) << p.error().str();
                EXPECT_GT(p->total, 100u) << "0.2 s of CPU at 2 kHz";
                ++profiles;
            }
        EXPECT_EQ(profiles, 1) << r.err;
    }

    // Short-lived children cost little (issue 33): one that ends within 20 ms writes no profile, and
    // its samples count in its parent's. 40 children of 3 ms of CPU: about 240 samples at 2 kHz in
    // `work`, which only the children run, over every profile written (a child that a loaded machine
    // kept past 20 ms writes its own).
    TEST_P(DescriptorsTest, ShortChildrenCountInTheParentsProfile)
    {
        const RunResult r = run(Way::Preloaded, "storm", { "storm", "40", "3" });
        EXPECT_EQ(r.out, "40 children, 0 failed\n");
        const FunctionSymbol work = findFunction(functionSymbols(PPE_DESCRIPTORS), "work");
        uint64_t inWork = 0, parentInWork = 0;
        int profiles = 0;
        for (const auto& entry : fs::directory_iterator(m_dir.file("storm"))) {
            if (entry.path().extension() != ".ppe")
                continue;
            auto p = readProfile(entry.path().string());
            ASSERT_TRUE(p) << p.error().str();
            ++profiles;
            inWork += hitsIn(*p, work);
            if (p->parentPid == uint64_t(getpid())) // the storm's parent (its children name it)
                parentInWork = hitsIn(*p, work);
        }
        EXPECT_LE(profiles, 21) << "most of the 40 children write no profile\n" << r.err;
        EXPECT_GT(double(parentInWork), 0.3 * 240) << "the children's samples count in the parent's profile";
        EXPECT_GT(double(inWork), 0.6 * 240) << r.err;
        EXPECT_LT(double(inWork), 1.5 * 240) << r.err;
    }

    INSTANTIATE_TEST_SUITE_P(Limits, DescriptorsTest, ::testing::Values("", "1024"),
        [](const auto& info) { return info.param.empty() ? std::string("SuiteLimit") : "Soft" + info.param; });

} // namespace
} // namespace ppe::testing
