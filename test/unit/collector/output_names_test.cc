// Where the collector writes: PPE_OUT as a file or a directory, the image's name beside it, and
// the programs a launched program runs under their own names (issue 18: an exec'd `ls` wrote the
// launched program's s.ppe, six times over); PPE_OUT's patterns and the ranks of a parallel job,
// which must never share a file (issue 20).
#include "output_names.h"

#include <gtest/gtest.h>

#include <climits>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace ppe {
namespace {

    // The template chooseOutputPath makes, and the NameIssue bits.
    std::string choose(
        const char* wanted, const char* image, bool descendant, const NameParts& parts, unsigned* issues = nullptr)
    {
        char pathTemplate[PATH_MAX] = {};
        const unsigned found = chooseOutputPath(wanted, image, descendant, parts, pathTemplate);
        if (issues)
            *issues = found;
        return pathTemplate;
    }

    // The name this process would write, and the NameIssue bits.
    std::string chosen(
        const char* wanted, const char* image, bool descendant, const NameParts& parts = {}, unsigned* issues = nullptr)
    {
        const std::string pathTemplate = choose(wanted, image, descendant, parts, issues);
        char path[PATH_MAX] = {};
        outputPathOf(pathTemplate.c_str(), uint64_t(getpid()), path);
        return path;
    }

    std::string templateOf(const char* wanted, const NameParts& parts = {})
    {
        return choose(wanted, "/usr/bin/prog", false, parts);
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
        // ... for the program the user named: one that a profiled program ran writes in the current
        // directory (issue 33: children of a preloaded shell wrote NAME.PID.ppe in /usr/bin).
        const std::string cwd = std::filesystem::current_path().string();
        EXPECT_EQ(chosen(nullptr, "/opt/job/prog", true), cwd + "/prog." + kPid + ".ppe");
    }

    TEST(OutputNames, ADirectoryGetsOneFilePerProcessByPidWithoutARank)
    {
        const std::string tmp = std::filesystem::temp_directory_path().string();
        EXPECT_EQ(chosen(tmp.c_str(), "/usr/bin/dd", false), tmp + "/dd." + kPid + ".ppe");
        EXPECT_EQ(chosen((tmp + "/").c_str(), "/usr/bin/dd", false), tmp + "/dd." + kPid + ".ppe");
        // The pid stays a pattern: a forked child puts its own in.
        EXPECT_EQ(templateOf((tmp + "/").c_str()), tmp + "/prog.%p.ppe");
    }

    // A name ending in '/' is a directory even before it exists: made at start, with its parents, as
    // `mkdir -p` would (issue 34); one that cannot be made sends the files to the current directory.
    TEST(OutputNames, ADirectoryNamedWithAFinalSlashIsMadeAtStart)
    {
        const std::string top = std::filesystem::temp_directory_path().string() + "/ppe-names-made-" + kPid;
        const std::string wanted = top + "/run/out/";
        EXPECT_EQ(chosen(wanted.c_str(), "/usr/bin/dd", false), wanted + "dd." + kPid + ".ppe");
        EXPECT_TRUE(std::filesystem::is_directory(wanted));
        std::ofstream(top + "/file") << "in the way\n";
        unsigned issues = 0;
        const std::string cwd = std::filesystem::current_path().string();
        const NameParts rank3 { "node7", "3", nullptr };
        EXPECT_EQ(chosen((top + "/file/out/").c_str(), "/usr/bin/dd", false, rank3, &issues), cwd + "/dd.rank3.ppe");
        EXPECT_EQ(issues, unsigned(kForeignDirectory));
        std::filesystem::remove_all(top);
    }

    TEST(OutputNames, WithoutPpeOutTheLaunchersDirectoryGetsTheImagesName)
    {
        const NameParts inCwd { "h", nullptr, nullptr, "/home/u/work" };
        EXPECT_EQ(chosen(nullptr, "/usr/bin/dd", false, inCwd), "/home/u/work/dd.ppe");
        EXPECT_EQ(chosen(nullptr, "/usr/bin/dd", true, inCwd), "/home/u/work/dd." + kPid + ".ppe");
        const NameParts ranked { "h", "5", nullptr, "/home/u/work/" };
        EXPECT_EQ(chosen(nullptr, "/usr/bin/dd", false, ranked), "/home/u/work/dd.rank5.ppe");
    }

    TEST(OutputNames, AProgramTheLaunchedProgramRanWritesUnderItsOwnNameAndPid)
    {
        EXPECT_EQ(chosen("/tmp/x/s.ppe", "/usr/bin/ls", true), "/tmp/x/ls." + kPid + ".ppe");
        const std::string tmp = std::filesystem::temp_directory_path().string();
        EXPECT_EQ(chosen((tmp + "/").c_str(), "/bin/dash", true), tmp + "/dash." + kPid + ".ppe");
    }

    const NameParts kRank3 { "node7", "3", "4711" };

    TEST(OutputNames, PatternsExpandToPidHostRankAndJob)
    {
        EXPECT_EQ(chosen("/r/%j/%h.%r.%p.ppe", "/usr/bin/prog", false, kRank3), "/r/4711/node7.3." + kPid + ".ppe");
        EXPECT_EQ(chosen("/r/100%%.ppe", "/usr/bin/prog", false), "/r/100%.ppe");
        // The pid stays a pattern in the template: a forked child puts its own in.
        EXPECT_EQ(templateOf("/r/%p-%%.ppe"), "/r/%p-%%.ppe");
    }

    TEST(OutputNames, WhatCannotBeExpandedHasADocumentedMeaning)
    {
        unsigned issues = 0;
        EXPECT_EQ(chosen("/r/a%r.ppe", "/usr/bin/prog", false, {}, &issues), "/r/a" + kPid + ".ppe");
        EXPECT_EQ(issues, unsigned(kNoRank));
        EXPECT_EQ(chosen("/r/%j.ppe", "/usr/bin/prog", false, {}, &issues), "/r/nojob.ppe");
        EXPECT_EQ(issues, unsigned(kNoJob));
        EXPECT_EQ(chosen("/r/%x%.ppe", "/usr/bin/prog", false, kRank3, &issues), "/r/%x%.rank3.ppe");
        EXPECT_EQ(issues, unsigned(kUnknownPattern));
        // A '/' in a job id or host name would make a directory.
        EXPECT_EQ(chosen("/r/%j.ppe", "/usr/bin/prog", false, { "h", nullptr, "a/b" }), "/r/a_b.ppe");
    }

    TEST(OutputNames, AKnownRankGetsItsOwnFileWithoutAPattern)
    {
        EXPECT_EQ(chosen(nullptr, "/opt/job/prog", false, kRank3), "/opt/job/prog.rank3.ppe");
        EXPECT_EQ(chosen("/tmp/x/run.ppe", "/usr/bin/prog", false, kRank3), "/tmp/x/run.rank3.ppe");
        EXPECT_EQ(chosen("/tmp/x/run", "/usr/bin/prog", false, kRank3), "/tmp/x/run.rank3");
        const std::string tmp = std::filesystem::temp_directory_path().string();
        EXPECT_EQ(chosen(tmp.c_str(), "/usr/bin/dd", false, kRank3), tmp + "/dd.rank3.ppe");
        // A name with the rank or the pid in it is one file per process already.
        EXPECT_EQ(chosen("/tmp/x/r%r.ppe", "/usr/bin/prog", false, kRank3), "/tmp/x/r3.ppe");
        EXPECT_EQ(chosen("/tmp/x/p%p.ppe", "/usr/bin/prog", false, kRank3), "/tmp/x/p" + kPid + ".ppe");
        // A program a rank ran writes under its own name and pid, as without a rank.
        EXPECT_EQ(chosen("/tmp/x/s.ppe", "/usr/bin/ls", true, kRank3), "/tmp/x/ls." + kPid + ".ppe");
    }

    TEST(OutputNames, ADirectoryWithAPatternIsExpandedFirst)
    {
        const std::string tmp = std::filesystem::temp_directory_path().string();
        const NameParts parts { "h", nullptr, nullptr };
        // %h expands to the name of an existing directory: the image's name goes inside it.
        const std::string dir = tmp + "/ppe-names-" + kPid;
        std::filesystem::create_directory(dir);
        EXPECT_EQ(chosen((tmp + "/ppe-names-%p").c_str(), "/usr/bin/dd", false, parts), dir + "/dd.ppe");
        std::filesystem::remove(dir);
    }

    std::string childName(const std::string& pathTemplate)
    {
        char path[PATH_MAX] = {};
        outputPathForChild(pathTemplate.c_str(), path);
        return path;
    }

    TEST(OutputNames, AForkedChildGetsItsOwnPid)
    {
        templateOf("/r/out.ppe"); // a parent with PPE_OUT: the child's name is the parent's plus its pid
        // The child calls it after fork: getpid() is its pid.
        EXPECT_EQ(childName("/r/out.%p.ppe"), "/r/out." + kPid + ".ppe");
        EXPECT_EQ(childName("/r/out.rank3.ppe"), "/r/out.rank3." + kPid + ".ppe");
        EXPECT_EQ(childName("/r/out"), "/r/out." + kPid);
        EXPECT_EQ(childName("/r/.hidden"), "/r/.hidden." + kPid);
        EXPECT_EQ(childName("/r/100%%.ppe"), "/r/100%." + kPid + ".ppe");
        // %%p is a '%' and a 'p', not the pid.
        EXPECT_EQ(childName("/r/a%%p.ppe"), "/r/a%p." + kPid + ".ppe");
    }

    // Beside its executable is for the program the user named; its forked children write in its
    // current directory, not in /usr/bin (issue 33).
    TEST(OutputNames, BesideTheExecutableOnlyTheFirstProcessWrites)
    {
        const std::string cwd = std::filesystem::current_path().string();
        const std::string parent = choose(nullptr, "/usr/bin/bash", false, {});
        EXPECT_EQ(parent, "/usr/bin/bash.ppe");
        EXPECT_EQ(childName(parent), cwd + "/bash." + kPid + ".ppe");
        // With a directory of its own, a forked child writes beside its parent's profile.
        const std::string launched = choose(nullptr, "/usr/bin/bash", false, { "h", nullptr, nullptr, "/w" });
        EXPECT_EQ(childName(launched), "/w/bash." + kPid + ".ppe");
    }

    // Only PPE_OUT itself, as the user wrote it, may be a device or FIFO (output_file.h).
    TEST(OutputNames, OnlyTheUsersOwnNameIsUserNamed)
    {
        templateOf("/tmp/x/fifo");
        EXPECT_TRUE(userNamedOutput("/tmp/x/fifo"));
        EXPECT_FALSE(userNamedOutput(("/tmp/x/fifo." + kPid).c_str()));
        templateOf("/tmp/x/p%p");
        EXPECT_TRUE(userNamedOutput(("/tmp/x/p" + kPid).c_str()));
        templateOf("/tmp/x/run.ppe", kRank3);
        EXPECT_FALSE(userNamedOutput("/tmp/x/run.rank3.ppe"));
        const std::string tmp = std::filesystem::temp_directory_path().string();
        templateOf(tmp.c_str());
        EXPECT_FALSE(userNamedOutput((tmp + "/prog." + kPid + ".ppe").c_str()));
        templateOf(nullptr);
        EXPECT_FALSE(userNamedOutput("/usr/bin/prog.ppe"));
    }

    // issue 32: another user's directory at the output name (`mkdir -m 777 /tmp/shared/run.ppe`) is
    // not filled with per-process files: they go to the current directory.
    TEST(OutputNames, AnotherUsersDirectoryIsNotFilled)
    {
        if (geteuid() != 0)
            GTEST_SKIP() << "needs root to give a directory to another user (chown)";
        const std::string dir = std::filesystem::temp_directory_path().string() + "/ppe-names-theirs-" + kPid;
        std::filesystem::create_directory(dir);
        ASSERT_EQ(chown(dir.c_str(), 65534, 65534), 0);
        unsigned issues = 0;
        const std::string cwd = std::filesystem::current_path().string();
        EXPECT_EQ(chosen(dir.c_str(), "/usr/bin/dd", false, {}, &issues), cwd + "/dd." + kPid + ".ppe");
        EXPECT_EQ(issues, unsigned(kForeignDirectory));
        EXPECT_EQ(chosen((dir + "/").c_str(), "/usr/bin/dd", false, kRank3, &issues), cwd + "/dd.rank3.ppe");
        std::filesystem::remove(dir);
    }

    TEST(OutputNames, TheLiveFileFollowsTheProfilesName)
    {
        const std::string tmp = std::filesystem::temp_directory_path().string();
        char live[PATH_MAX] = {};
        const std::string output = tmp + "/names.rank3.ppe";
        const int fd = openLiveFile(output.c_str(), live);
        ASSERT_GE(fd, 0);
        close(fd);
        unlink(live);
        EXPECT_EQ(std::string(live), output + "." + kPid + ".live");
    }

} // namespace
} // namespace ppe
