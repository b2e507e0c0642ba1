// Every documented way of linking the collector, for C and for Fortran (libgfortran installs
// signal handlers of its own and uses gthreads), with PPE_ON unset and in both modes: the program
// ends as it would without the collector, and a profile holds its samples (issue 18: a gfortran
// program linked with libppe.a died of SIGTRAP in CPU mode, and fully static it died of SIGSEGV
// even without PPE_ON).
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

namespace ppe::testing {
namespace {

    struct LinkCase {
        const char* name;
        const char* program;
        const char* argument;
    };

    void PrintTo(const LinkCase& c, std::ostream* os) { *os << c.name; }

    class LinkModeTest : public ::testing::TestWithParam<std::tuple<LinkCase, const char*>> { };

    TEST_P(LinkModeTest, EndsAsWithoutTheCollectorAndProfilesWhenAsked)
    {
        const auto& [link, mode] = GetParam();
        TempDir dir;
        const std::string out = dir.file("run.ppe");
        const std::string program = std::string(PPE_EXAMPLES_DIR) + "/" + link.program;
        const bool off = std::string_view(mode) == "off";
        std::vector<EnvChange> env { { "PPE_OUT", out } };
        env.push_back(off ? EnvChange { "PPE_ON", "", true } : EnvChange { "PPE_ON", "1" });
        if (!off)
            env.push_back({ "PPE_MODE", mode });
        const RunResult run = runProgram({ program, link.argument }, env);
        ASSERT_TRUE(run.exited) << link.name << " killed by signal " << run.signal << "\n" << run.err;
        EXPECT_EQ(run.status, 0) << run.err;
        if (off) {
            EXPECT_FALSE(fileExists(out)) << "a collector without PPE_ON wrote a profile";
            EXPECT_EQ(run.err, "") << "a collector without PPE_ON spoke";
            return;
        }
        auto profile = readProfile(out);
        ASSERT_TRUE(profile) << profile.error().str() << "\n" << run.err;
        // A few tenths of a second of CPU: hundreds of samples at 2 kHz, dozens at a 250 Hz tick.
        EXPECT_GT(profile->inRange(), 20u) << profile->mechanism;
        EXPECT_GT(profile->inRange() * 2, profile->total) << "most samples in the program's own code";
    }

    INSTANTIATE_TEST_SUITE_P(Programs, LinkModeTest,
        ::testing::Combine(::testing::Values(LinkCase { "fortran_shared", "ktest", "2" },
                               LinkCase { "fortran_archive", "ktest_archive", "2" },
                               LinkCase { "fortran_fully_static", "ktest_fullstatic", "2" },
                               LinkCase { "c_archive", "simp_static", "100000000000000003" },
                               LinkCase { "c_fully_static", "simp_fullstatic", "100000000000000003" }),
            ::testing::Values("off", "real", "cpu")),
        [](const auto& info) { return std::string(std::get<0>(info.param).name) + "_" + std::get<1>(info.param); });

} // namespace
} // namespace ppe::testing
