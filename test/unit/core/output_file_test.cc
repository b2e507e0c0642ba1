// PPE's output rule: nothing is ever destroyed. Each test runs in a fresh temporary directory and
// ends by checking that no temporary file was left behind.
#include "ppe/core/output_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace ppe {
namespace {

    namespace fs = std::filesystem;

    std::string readFile(const fs::path& path)
    {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream text;
        text << in.rdbuf();
        return text.str();
    }

    void writeFile(const fs::path& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }

    class OutputFileTest : public ::testing::Test {
    protected:
        void SetUp() override
        {
            char pattern[] = "/tmp/ppe-unit-output-XXXXXX";
            ASSERT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
            m_dir = pattern;
        }

        void TearDown() override
        {
            EXPECT_EQ(temporaryFiles(), std::vector<std::string> {}) << "stray temporary files in " << m_dir;
            std::error_code ignored;
            fs::remove_all(m_dir, ignored);
        }

        std::string path(const std::string& name) const { return (m_dir / name).string(); }

        // Names in the directory that look like openOutput's temporary files (.NAME.tmp.PID.N).
        std::vector<std::string> temporaryFiles() const
        {
            std::vector<std::string> found;
            for (const auto& entry : fs::directory_iterator(m_dir)) {
                const std::string name = entry.path().filename().string();
                if (name[0] == '.' && name.find(".tmp.") != std::string::npos)
                    found.push_back(name);
            }
            return found;
        }

        std::vector<std::string> names() const
        {
            std::vector<std::string> found;
            for (const auto& entry : fs::directory_iterator(m_dir))
                found.push_back(entry.path().filename().string());
            std::sort(found.begin(), found.end());
            return found;
        }

        // Writes `text` through openOutput/commitOutput; returns commitOutput's result.
        int commitText(const std::string& name, const std::string& text)
        {
            OutputFile file;
            const int opened = openOutput(path(name).c_str(), &file);
            EXPECT_EQ(opened, 0) << std::strerror(opened);
            if (opened)
                return opened;
            EXPECT_EQ(write(file.fd, text.data(), text.size()), ssize_t(text.size()));
            return commitOutput(&file);
        }

        fs::path m_dir;
    };

    TEST_F(OutputFileTest, OpenCreatesAHiddenTemporaryNextToTheTarget)
    {
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        EXPECT_GE(file.fd, 0);
        EXPECT_EQ(std::string(file.path), path("run.ppe"));
        const std::string expected = path(".run.ppe.tmp." + std::to_string(getpid()) + ".0");
        EXPECT_EQ(std::string(file.tempPath), expected);
        EXPECT_TRUE(fs::is_regular_file(expected));
        EXPECT_FALSE(fs::exists(path("run.ppe")));
        abandonOutput(&file);
    }

    TEST_F(OutputFileTest, CommitCreatesTheFile)
    {
        ASSERT_EQ(commitText("run.ppe", "first\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "first\n");
        EXPECT_EQ(names(), std::vector<std::string> { "run.ppe" });
    }

    TEST_F(OutputFileTest, CommittedFileIsReadableByAll)
    {
        const mode_t old = umask(022);
        const int result = commitText("run.ppe", "x");
        umask(old);
        ASSERT_EQ(result, 0);
        struct stat st;
        ASSERT_EQ(stat(path("run.ppe").c_str(), &st), 0);
        EXPECT_TRUE(S_ISREG(st.st_mode));
        EXPECT_EQ(st.st_mode & 07777, 0644u);
    }

    TEST_F(OutputFileTest, CommitResetsTheHandle)
    {
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        ASSERT_EQ(commitOutput(&file), 0);
        EXPECT_EQ(file.fd, -1);
        EXPECT_EQ(file.tempPath[0], '\0');
        EXPECT_EQ(readFile(path("run.ppe")), "");
    }

    TEST_F(OutputFileTest, EarlierResultsBecomeNumberedBackups)
    {
        ASSERT_EQ(commitText("run.ppe", "one\n"), 0);
        ASSERT_EQ(commitText("run.ppe", "two\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "two\n");
        EXPECT_EQ(readFile(path("run.ppe.~1~")), "one\n");
        ASSERT_EQ(commitText("run.ppe", "three\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "three\n");
        EXPECT_EQ(readFile(path("run.ppe.~1~")), "one\n");
        EXPECT_EQ(readFile(path("run.ppe.~2~")), "two\n");
        EXPECT_EQ(names(), (std::vector<std::string> { "run.ppe", "run.ppe.~1~", "run.ppe.~2~" }));
    }

    TEST_F(OutputFileTest, BackupNumbersContinueAfterTheHighest)
    {
        writeFile(path("run.ppe.~2~"), "older\n");
        ASSERT_EQ(commitText("run.ppe", "previous\n"), 0);
        ASSERT_EQ(commitText("run.ppe", "newest\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe.~2~")), "older\n");
        EXPECT_EQ(readFile(path("run.ppe.~3~")), "previous\n");
        EXPECT_FALSE(fs::exists(path("run.ppe.~1~")));
    }

    TEST_F(OutputFileTest, ReplacingKeepsNoBackup)
    {
        // A checkpoint replaces the file it wrote itself.
        ASSERT_EQ(commitText("run.ppe", "checkpoint 1\n"), 0);
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        ASSERT_EQ(write(file.fd, "checkpoint 2\n", 13), 13);
        ASSERT_EQ(commitOutput(&file, true), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "checkpoint 2\n");
        EXPECT_EQ(names(), std::vector<std::string> { "run.ppe" });
    }

    TEST_F(OutputFileTest, SymlinkAtThePlainNameIsNotFollowed)
    {
        writeFile(path("victim.txt"), "precious\n");
        fs::create_symlink("victim.txt", path("run.ppe"));
        ASSERT_EQ(commitText("run.ppe", "profile\n"), 0);
        EXPECT_EQ(readFile(path("victim.txt")), "precious\n");
        EXPECT_FALSE(fs::is_symlink(path("run.ppe")));
        EXPECT_EQ(readFile(path("run.ppe")), "profile\n");
        ASSERT_TRUE(fs::is_symlink(path("run.ppe.~1~"))) << "the link itself should be kept as the backup";
        EXPECT_EQ(fs::read_symlink(path("run.ppe.~1~")), "victim.txt");
    }

    TEST_F(OutputFileTest, DanglingSymlinkIsKeptToo)
    {
        fs::create_symlink("nowhere", path("run.ppe"));
        ASSERT_EQ(commitText("run.ppe", "profile\n"), 0);
        EXPECT_FALSE(fs::exists(path("nowhere")));
        EXPECT_EQ(readFile(path("run.ppe")), "profile\n");
        EXPECT_TRUE(fs::is_symlink(path("run.ppe.~1~")));
    }

    TEST_F(OutputFileTest, SymlinkPlantedAtTheTemporaryNameIsNotFollowed)
    {
        writeFile(path("victim.txt"), "precious\n");
        const std::string planted = path(".run.ppe.tmp." + std::to_string(getpid()) + ".0");
        fs::create_symlink("victim.txt", planted);
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        EXPECT_NE(std::string(file.tempPath), planted);
        ASSERT_EQ(write(file.fd, "new\n", 4), 4);
        ASSERT_EQ(commitOutput(&file), 0);
        EXPECT_EQ(readFile(path("victim.txt")), "precious\n");
        EXPECT_EQ(readFile(path("run.ppe")), "new\n");
        EXPECT_TRUE(fs::is_symlink(planted));
        fs::remove(planted);
    }

    TEST_F(OutputFileTest, AbandonLeavesNothing)
    {
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        ASSERT_EQ(write(file.fd, "partial", 7), 7);
        abandonOutput(&file);
        EXPECT_EQ(file.fd, -1);
        EXPECT_EQ(names(), std::vector<std::string> {});
    }

    TEST_F(OutputFileTest, AbandonKeepsAnEarlierResultUntouched)
    {
        ASSERT_EQ(commitText("run.ppe", "kept\n"), 0);
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        abandonOutput(&file);
        EXPECT_EQ(readFile(path("run.ppe")), "kept\n");
        EXPECT_EQ(names(), std::vector<std::string> { "run.ppe" });
    }

    TEST_F(OutputFileTest, DirectoryAtThePlainNameFailsWithEisdir)
    {
        fs::create_directory(path("run.ppe"));
        writeFile(path("run.ppe/inside"), "x");
        EXPECT_EQ(commitText("run.ppe", "profile\n"), EISDIR);
        EXPECT_TRUE(fs::is_directory(path("run.ppe")));
        EXPECT_EQ(readFile(path("run.ppe/inside")), "x");
        EXPECT_EQ(names(), std::vector<std::string> { "run.ppe" }) << "the temporary file should be removed";
    }

    // A FIFO (as /dev/null, a device) at the name is written into and stays what it is: renaming it
    // away as root once put a plain file in place of /dev/null for the whole machine.
    TEST_F(OutputFileTest, APipeAtThePlainNameIsWrittenIntoNotReplaced)
    {
        ASSERT_EQ(mkfifo(path("pipe").c_str(), 0600), 0) << std::strerror(errno);
        std::string received;
        std::thread reader([&] { received = readFile(path("pipe")); });
        while (true) { // the reader's open, then the writer's: a FIFO without a reader is ENXIO
            OutputFile file;
            const int opened = openOutput(path("pipe").c_str(), &file);
            if (opened == ENXIO) {
                usleep(1000);
                continue;
            }
            ASSERT_EQ(opened, 0) << std::strerror(opened);
            EXPECT_EQ(file.tempPath[0], '\0');
            EXPECT_EQ(write(file.fd, "profile\n", 8), 8);
            EXPECT_EQ(commitOutput(&file), 0);
            break;
        }
        reader.join();
        EXPECT_EQ(received, "profile\n");
        struct stat st { };
        ASSERT_EQ(lstat(path("pipe").c_str(), &st), 0);
        EXPECT_TRUE(S_ISFIFO(st.st_mode));
        EXPECT_EQ(names(), std::vector<std::string> { "pipe" }) << "no backup, no temporary file";
    }

    TEST_F(OutputFileTest, APipeWithoutAReaderIsEnxioAtOnce)
    {
        ASSERT_EQ(mkfifo(path("pipe").c_str(), 0600), 0) << std::strerror(errno);
        EXPECT_EQ(writeOutputFile(path("pipe").c_str(), "x", 1), ENXIO);
        struct stat st { };
        ASSERT_EQ(lstat(path("pipe").c_str(), &st), 0);
        EXPECT_TRUE(S_ISFIFO(st.st_mode));
    }

    TEST_F(OutputFileTest, MissingDirectoryIsEnoent)
    {
        OutputFile file;
        EXPECT_EQ(openOutput(path("no/such/dir/run.ppe").c_str(), &file), ENOENT);
        EXPECT_EQ(file.fd, -1);
    }

    TEST_F(OutputFileTest, TooLongPathIsEnametoolong)
    {
        OutputFile file;
        const std::string longName(PATH_MAX + 10, 'a');
        EXPECT_EQ(openOutput(longName.c_str(), &file), ENAMETOOLONG);
        // The plain name fits but the temporary name (".NAME.tmp.PID.N") does not.
        const std::string almost = "/" + std::string(PATH_MAX - 2, 'b');
        EXPECT_EQ(openOutput(almost.c_str(), &file), ENAMETOOLONG);
    }

    TEST_F(OutputFileTest, RelativeNameWithoutDirectory)
    {
        const fs::path before = fs::current_path();
        fs::current_path(m_dir);
        OutputFile file;
        const int opened = openOutput("plain.ppe", &file);
        const std::string tempPath = file.tempPath;
        const int committed = opened ? opened : commitOutput(&file);
        fs::current_path(before);
        ASSERT_EQ(opened, 0);
        EXPECT_EQ(tempPath, ".plain.ppe.tmp." + std::to_string(getpid()) + ".0");
        EXPECT_EQ(committed, 0);
        EXPECT_TRUE(fs::is_regular_file(path("plain.ppe")));
    }

    TEST_F(OutputFileTest, KeepNumberedBackupWithNothingThere)
    {
        EXPECT_EQ(keepNumberedBackup(path("absent").c_str()), 0);
        EXPECT_EQ(names(), std::vector<std::string> {});
    }

    TEST_F(OutputFileTest, KeepNumberedBackupIsAHardLink)
    {
        writeFile(path("data"), "x");
        ASSERT_EQ(keepNumberedBackup(path("data").c_str()), 0);
        ASSERT_EQ(keepNumberedBackup(path("data").c_str()), 0);
        EXPECT_EQ(names(), (std::vector<std::string> { "data", "data.~1~", "data.~2~" }));
        EXPECT_TRUE(fs::equivalent(path("data"), path("data.~1~")));
        EXPECT_EQ(fs::hard_link_count(path("data")), 3u);
    }

    TEST(CopyString, Fits)
    {
        char to[8];
        EXPECT_TRUE(copyString(to, sizeof(to), "abc"));
        EXPECT_STREQ(to, "abc");
        EXPECT_TRUE(copyString(to, sizeof(to), "1234567"));
        EXPECT_STREQ(to, "1234567");
        EXPECT_TRUE(copyString(to, sizeof(to), ""));
        EXPECT_STREQ(to, "");
    }

    TEST(CopyString, TruncatesAndTerminates)
    {
        char to[8];
        EXPECT_FALSE(copyString(to, sizeof(to), "12345678"));
        EXPECT_STREQ(to, "1234567");
        char one[1] = { 'x' };
        EXPECT_FALSE(copyString(one, sizeof(one), "a"));
        EXPECT_EQ(one[0], '\0');
    }

} // namespace
} // namespace ppe
