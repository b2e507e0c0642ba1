// Where the collector writes: PPE_OUT as a file or a directory, the image's name beside it, and
// the programs a launched program runs under their own names (issue 18: an exec'd `ls` wrote the
// launched program's s.ppe, six times over).
#include "output_names.h"

#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace ppe {
namespace {

    std::string chosen(const char* wanted, const char* image, bool descendant)
    {
        char path[PATH_MAX] = {};
        chooseOutputPath(wanted, image, descendant, path);
        return path;
    }

    const std::string kPid = std::to_string(getpid());

    TEST(OutputNames, AFileNameIsTakenAsItIsAndResolvedNow)
    {
        EXPECT_EQ(chosen("/tmp/x/run.ppe", "/usr/bin/prog", false), "/tmp/x/run.ppe");
        EXPECT_EQ(chosen("run.ppe", "/usr/bin/prog", false), std::filesystem::current_path().string() + "/run.ppe");
    }

    TEST(OutputNames, WithoutPpeOutTheProfileLiesBesideTheImage)
    {
        EXPECT_EQ(chosen(nullptr, "/opt/job/prog", false), "/opt/job/prog.ppe");
        EXPECT_EQ(chosen(nullptr, "/opt/job/prog", true), "/opt/job/prog." + kPid + ".ppe");
    }

    TEST(OutputNames, ADirectoryGetsTheImagesName)
    {
        const std::string tmp = std::filesystem::temp_directory_path().string();
        EXPECT_EQ(chosen(tmp.c_str(), "/usr/bin/dd", false), tmp + "/dd.ppe");
        EXPECT_EQ(chosen((tmp + "/").c_str(), "/usr/bin/dd", false), tmp + "/dd.ppe");
        // A name ending in '/' is a directory even before it exists (the launcher checks it).
        EXPECT_EQ(chosen("/nonexistent/out/", "/usr/bin/dd", false), "/nonexistent/out/dd.ppe");
    }

    TEST(OutputNames, AProgramTheLaunchedProgramRanWritesUnderItsOwnNameAndPid)
    {
        EXPECT_EQ(chosen("/tmp/x/s.ppe", "/usr/bin/ls", true), "/tmp/x/ls." + kPid + ".ppe");
        const std::string tmp = std::filesystem::temp_directory_path().string();
        EXPECT_EQ(chosen((tmp + "/").c_str(), "/bin/dash", true), tmp + "/dash." + kPid + ".ppe");
    }

} // namespace
} // namespace ppe
