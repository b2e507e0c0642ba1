// PPE's rule that nothing is ever destroyed, for the signal-safe output path.
#include "ppe/core/output_file.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace ppe {
namespace {

using testing::TempDir;
using testing::readFile;

int writeFile(const std::string& path, const std::string& text)
{
    OutputFile file;
    if (int error = openOutput(path.c_str(), &file))
        return error;
    EXPECT_EQ(write(file.fd, text.data(), text.size()), ssize_t(text.size()));
    return commitOutput(&file);
}

int countTempFiles(const std::string& dir)
{
    int n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        n += e.path().filename().string().find(".tmp.") != std::string::npos;
    return n;
}

TEST(OutputFile, NewestAtThePlainNameOlderAsNumberedBackups)
{
    TempDir dir;
    const std::string path = dir.file("simp.ppe");
    ASSERT_EQ(writeFile(path, "first"), 0);
    ASSERT_EQ(writeFile(path, "second"), 0);
    ASSERT_EQ(writeFile(path, "third"), 0);
    EXPECT_EQ(readFile(path), "third");
    EXPECT_EQ(readFile(path + ".~1~"), "first");
    EXPECT_EQ(readFile(path + ".~2~"), "second");
    EXPECT_FALSE(std::filesystem::exists(path + ".~3~"));
    EXPECT_EQ(countTempFiles(dir.path()), 0);
}

TEST(OutputFile, ASymlinkAtThePlainNameIsKeptNotFollowed)
{
    TempDir dir;
    const std::string target = dir.file("precious.txt");
    std::ofstream(target) << "user data";
    std::filesystem::create_symlink(target, dir.file("out.ppe"));
    ASSERT_EQ(writeFile(dir.file("out.ppe"), "profile"), 0);
    EXPECT_EQ(readFile(target), "user data");
    EXPECT_TRUE(std::filesystem::is_symlink(dir.file("out.ppe.~1~")));
    EXPECT_FALSE(std::filesystem::is_symlink(dir.file("out.ppe")));
    EXPECT_EQ(readFile(dir.file("out.ppe")), "profile");
}

TEST(OutputFile, AbandonLeavesNothing)
{
    TempDir dir;
    OutputFile file;
    ASSERT_EQ(openOutput(dir.file("x.ppe").c_str(), &file), 0);
    abandonOutput(&file);
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(OutputFile, FailuresLeaveWhatWasThere)
{
    TempDir dir;
    std::filesystem::create_directory(dir.file("d.ppe"));
    EXPECT_EQ(writeFile(dir.file("d.ppe"), "x"), EISDIR);
    EXPECT_TRUE(std::filesystem::is_directory(dir.file("d.ppe")));
    EXPECT_EQ(countTempFiles(dir.path()), 0);
    EXPECT_EQ(writeFile(dir.file("missing/x.ppe"), "x"), ENOENT);
}

TEST(OutputFile, CopyString)
{
    char small[4];
    EXPECT_FALSE(copyString(small, sizeof(small), "toolong"));
    EXPECT_STREQ(small, "too");
    EXPECT_TRUE(copyString(small, sizeof(small), "ok"));
    EXPECT_STREQ(small, "ok");
}

} // namespace
} // namespace ppe
