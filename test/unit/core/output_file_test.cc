// PPE's output rule: nothing is ever destroyed. Each test runs in a fresh temporary directory and
// ends by checking that no temporary file was left behind.
#include "ppe/core/output_file.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <regex>
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

        // Names in the directory that look like openOutput's temporary files (.ppe-RANDOM.tmp).
        std::vector<std::string> temporaryFiles() const
        {
            std::vector<std::string> found;
            for (const auto& entry : fs::directory_iterator(m_dir)) {
                const std::string name = entry.path().filename().string();
                if (name.starts_with(".ppe-") && name.ends_with(".tmp"))
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

    // The temporary file is unnamed (O_TMPFILE) until it is committed, or has a random name: nobody
    // can take its name first (issue 32: the 100 names .NAME.tmp.PID.0..99 were predictable).
    TEST_F(OutputFileTest, OpenCreatesAnUnnamedOrRandomTemporaryNextToTheTarget)
    {
        OutputFile file;
        ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
        EXPECT_GE(file.fd, 0);
        EXPECT_GE(file.dir, 0);
        EXPECT_EQ(std::string(file.path), path("run.ppe"));
        EXPECT_FALSE(file.device);
        if (file.unnamed) {
            EXPECT_EQ(file.tempName[0], '\0');
            EXPECT_EQ(names(), std::vector<std::string> {});
        } else {
            EXPECT_TRUE(std::regex_match(file.tempName, std::regex(R"(\.ppe-[0-9a-f]{16}\.tmp)"))) << file.tempName;
            EXPECT_EQ(names(), std::vector<std::string> { file.tempName });
        }
        abandonOutput(&file);
        EXPECT_EQ(file.dir, -1);
    }

    TEST_F(OutputFileTest, TemporaryNamesDifferEachTime)
    {
        std::vector<std::string> seen;
        for (int i = 0; i < 4; ++i) {
            OutputFile file;
            ASSERT_EQ(openOutput(path("run.ppe").c_str(), &file), 0);
            ASSERT_EQ(write(file.fd, "x", 1), 1);
            ASSERT_EQ(fsync(file.fd), 0);
            // Committing names an unnamed file first; abandon after naming to see the name.
            if (file.unnamed) {
                ASSERT_EQ(commitOutput(&file, true), 0);
                continue;
            }
            seen.push_back(file.tempName);
            abandonOutput(&file);
        }
        std::sort(seen.begin(), seen.end());
        EXPECT_EQ(std::unique(seen.begin(), seen.end()), seen.end());
    }

    // Another user who makes the old predictable names (and more) stops nothing.
    TEST_F(OutputFileTest, PlantedTemporaryNamesStopNothing)
    {
        writeFile(path("victim.txt"), "precious\n");
        for (int i = 0; i < 100; ++i)
            fs::create_symlink(
                "victim.txt", path(".run.ppe.tmp." + std::to_string(getpid()) + "." + std::to_string(i)));
        ASSERT_EQ(commitText("run.ppe", "profile\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "profile\n");
        EXPECT_EQ(readFile(path("victim.txt")), "precious\n");
    }

    // The temporary name no longer carries the plain name: a name of 250 bytes still commits.
    TEST_F(OutputFileTest, ALongNameStillHasRoomForItsTemporary)
    {
        const std::string name(250, 'n');
        ASSERT_EQ(commitText(name, "one\n"), 0);
        ASSERT_EQ(commitText(name, "two\n"), 0);
        EXPECT_EQ(readFile(path(name)), "two\n");
        EXPECT_EQ(readFile(path(name + ".~1~")), "one\n");
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
        EXPECT_EQ(file.dir, -1);
        EXPECT_EQ(file.tempName[0], '\0');
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
        OutputFile file; // refused at once, before a whole profile is written for nothing
        EXPECT_EQ(openOutput(path("run.ppe").c_str(), &file), EISDIR);
        EXPECT_EQ(file.dir, -1);
        EXPECT_TRUE(fs::is_directory(path("run.ppe")));
        EXPECT_EQ(readFile(path("run.ppe/inside")), "x");
        EXPECT_EQ(names(), std::vector<std::string> { "run.ppe" }) << "the temporary file should be removed";
    }

    // A FIFO the user named (as /dev/null, a device) is written into and stays what it is: renaming
    // it away as root once put a plain file in place of /dev/null for the whole machine.
    TEST_F(OutputFileTest, APipeTheUserNamedIsWrittenIntoNotReplaced)
    {
        ASSERT_EQ(mkfifo(path("pipe").c_str(), 0600), 0) << std::strerror(errno);
        std::string received;
        std::thread reader([&] { received = readFile(path("pipe")); });
        while (true) { // the reader's open, then the writer's: a FIFO without a reader is ENXIO
            OutputFile file;
            const int opened = openOutput(path("pipe").c_str(), &file, OutputName::Given);
            if (opened == ENXIO) {
                usleep(1000);
                continue;
            }
            ASSERT_EQ(opened, 0) << std::strerror(opened);
            EXPECT_TRUE(file.device);
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
        EXPECT_EQ(writeOutputFile(path("pipe").c_str(), "x", 1, OutputName::Given), ENXIO);
        struct stat st { };
        ASSERT_EQ(lstat(path("pipe").c_str(), &st), 0);
        EXPECT_TRUE(S_ISFIFO(st.st_mode));
    }

    // A name ppe made up (DIR/PROG.PID.ppe) is never a device: a FIFO there is somebody's trap.
    TEST_F(OutputFileTest, APipeAtAMadeUpNameIsRefusedAndLeftAlone)
    {
        ASSERT_EQ(mkfifo(path("pipe").c_str(), 0600), 0) << std::strerror(errno);
        const char* refusal = nullptr;
        EXPECT_EQ(writeOutputFile(path("pipe").c_str(), "x", 1, OutputName::MadeUp, &refusal), EEXIST);
        ASSERT_NE(refusal, nullptr);
        EXPECT_STREQ(refusal, "a device or FIFO is at a name ppe made up");
        EXPECT_EQ(names(), std::vector<std::string> { "pipe" });
    }

    TEST_F(OutputFileTest, DevNullTheUserNamedIsWrittenInto)
    {
        OutputFile file;
        ASSERT_EQ(openOutput("/dev/null", &file, OutputName::Given), 0);
        EXPECT_TRUE(file.device);
        EXPECT_EQ(write(file.fd, "x", 1), 1);
        EXPECT_EQ(commitOutput(&file), 0);
        struct stat st { };
        ASSERT_EQ(lstat("/dev/null", &st), 0);
        EXPECT_TRUE(S_ISCHR(st.st_mode));
    }

    // /dev/stdout is root's symlink to /proc/self/fd/1, whose "target" is no path: it is the
    // process's own descriptor and is written into, whatever it is (a pipe, a file: at its offset).
    TEST_F(OutputFileTest, DevStdoutIsThisProcesssOwnDescriptor)
    {
        int pipeFds[2];
        ASSERT_EQ(pipe(pipeFds), 0);
        fflush(stdout);
        const int saved = dup(STDOUT_FILENO);
        const int toFile = open(path("out.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        ASSERT_GE(toFile, 0);
        ASSERT_EQ(write(toFile, "before\n", 7), 7);
        dup2(pipeFds[1], STDOUT_FILENO);
        const int toPipe = writeOutputFile("/dev/stdout", "piped\n", 6, OutputName::Given);
        dup2(toFile, STDOUT_FILENO);
        const int appended = writeOutputFile("/dev/stdout", "appended\n", 9, OutputName::Given);
        // The program's own later writes follow the profile, not over it: one offset for both.
        const ssize_t after = write(STDOUT_FILENO, "after\n", 6);
        dup2(saved, STDOUT_FILENO);
        close(saved);
        close(toFile);
        close(pipeFds[1]);
        char buffer[16] = {};
        EXPECT_EQ(read(pipeFds[0], buffer, sizeof(buffer) - 1), 6);
        close(pipeFds[0]);
        EXPECT_EQ(toPipe, 0) << std::strerror(toPipe);
        EXPECT_EQ(appended, 0) << std::strerror(appended);
        EXPECT_STREQ(buffer, "piped\n");
        EXPECT_EQ(after, 6);
        EXPECT_EQ(readFile(path("out.txt")), "before\nappended\nafter\n");
        EXPECT_TRUE(fs::is_symlink("/dev/stdout"));
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
        // The whole name fits but its last component is longer than a file name may be.
        const std::string almost = "/" + std::string(PATH_MAX - 2, 'b');
        EXPECT_EQ(openOutput(almost.c_str(), &file), ENAMETOOLONG);
        EXPECT_EQ(file.dir, -1);
    }

    TEST_F(OutputFileTest, RelativeNameWithoutDirectory)
    {
        const fs::path before = fs::current_path();
        fs::current_path(m_dir);
        OutputFile file;
        const int opened = openOutput("plain.ppe", &file);
        const int committed = opened ? opened : commitOutput(&file);
        fs::current_path(before);
        ASSERT_EQ(opened, 0);
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

    // Backup numbers anybody could plant in a shared directory (issue 32): one empty file
    // `run.ppe.~99999999~` used to stop every later profile, and `.~18446744073709551615~` wrapped the
    // counter to `.~0~`. A number counts only with at most 9 digits and at most 1000 above the count
    // of backups present.
    TEST_F(OutputFileTest, AnImplausibleBackupNumberStopsNothing)
    {
        writeFile(path("run.ppe.~99999999~"), "");
        writeFile(path("run.ppe.~18446744073709551615~"), "");
        writeFile(path("run.ppe.~1000000000~"), "");
        ASSERT_EQ(commitText("run.ppe", "one\n"), 0);
        ASSERT_EQ(commitText("run.ppe", "two\n"), 0);
        ASSERT_EQ(commitText("run.ppe", "three\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "three\n");
        EXPECT_EQ(readFile(path("run.ppe.~1~")), "one\n");
        EXPECT_EQ(readFile(path("run.ppe.~2~")), "two\n");
        EXPECT_FALSE(fs::exists(path("run.ppe.~0~"))) << "the counter wrapped";
        EXPECT_EQ(readFile(path("run.ppe.~99999999~")), "");
    }

    TEST_F(OutputFileTest, BackupNumbersCountUpToAThousandAboveTheBackupsPresent)
    {
        writeFile(path("run.ppe.~1001~"), "old\n"); // one backup present: up to 1001 counts
        ASSERT_EQ(commitText("run.ppe", "a\n"), 0);
        ASSERT_EQ(commitText("run.ppe", "b\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe.~1002~")), "a\n");
        fs::remove(path("run.ppe.~1001~"));
        fs::remove(path("run.ppe.~1002~"));
        writeFile(path("run.ppe.~1002~"), "planted\n"); // one backup present: 1002 is too far
        ASSERT_EQ(commitText("run.ppe", "c\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe.~1~")), "b\n");
        EXPECT_EQ(readFile(path("run.ppe.~1002~")), "planted\n");
    }

    // 1001 empty files `run.ppe.~2001~` .. `.~3001~` (the first plausible, the thousand numbers
    // after it taken) used to exhaust the thousand tries: "File exists", no profile, the previous
    // one kept. Random 9-digit numbers follow the tries: no directory holds enough files to block them.
    TEST_F(OutputFileTest, AThousandPlantedBackupNumbersStopNothing)
    {
        writeFile(path("run.ppe"), "previous\n");
        for (int n = 2001; n <= 3001; ++n)
            writeFile(path("run.ppe.~" + std::to_string(n) + "~"), "");
        ASSERT_EQ(commitText("run.ppe", "new\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe")), "new\n");
        std::vector<std::string> kept;
        for (const std::string& name : names())
            if (name.starts_with("run.ppe.~") && readFile(path(name)) == "previous\n")
                kept.push_back(name);
        ASSERT_EQ(kept.size(), 1u) << "the previous result is kept once";
        EXPECT_TRUE(std::regex_match(kept[0], std::regex(R"(run\.ppe\.~[1-9][0-9]{8}~)"))) << kept[0];
    }

    TEST_F(OutputFileTest, BackupNamesWithLeadingZerosAreNotBackups)
    {
        writeFile(path("run.ppe.~007~"), "x");
        writeFile(path("run.ppe.~0~"), "x");
        ASSERT_EQ(commitText("run.ppe", "a\n"), 0);
        ASSERT_EQ(commitText("run.ppe", "b\n"), 0);
        EXPECT_EQ(readFile(path("run.ppe.~1~")), "a\n");
    }

    TEST_F(OutputFileTest, ABackupThatIsASymlinkCountsToo)
    {
        writeFile(path("run.ppe"), "first\n");
        fs::create_symlink("nowhere", path("run.ppe.~1~")); // a backup of a symlink counts too
        ASSERT_EQ(keepNumberedBackup(path("run.ppe").c_str()), 0);
        EXPECT_EQ(readFile(path("run.ppe.~2~")), "first\n");
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
