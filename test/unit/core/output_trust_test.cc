// Whose names the output follows (issue 32): a device or FIFO the user named is written into only
// when neither it, nor a symlink leading to it, nor the directory holding either belongs to another
// user; a directory is filled with one file per process only when it is the user's or root's. The
// cases that need another user's nodes make them with chown, as root (they skip otherwise).
#include "ppe/core/output_file.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <string>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace ppe {
namespace {

    namespace fs = std::filesystem;

    constexpr uid_t kOther = 65534; // nobody

    class OutputTrustTest : public ::testing::Test {
    protected:
        void SetUp() override
        {
            char pattern[] = "/tmp/ppe-unit-trust-XXXXXX";
            ASSERT_NE(mkdtemp(pattern), nullptr) << std::strerror(errno);
            m_dir = pattern;
        }

        void TearDown() override
        {
            std::error_code ignored;
            fs::remove_all(m_dir, ignored);
        }

        std::string path(const std::string& name) const { return (m_dir / name).string(); }

        static bool root() { return geteuid() == 0; }

        // A reader on the FIFO (non-blocking, so that a writer may open it); returns its descriptor.
        int reader(const std::string& fifo)
        {
            const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
            EXPECT_GE(fd, 0) << std::strerror(errno);
            return fd;
        }

        // What the reader got (nothing: "").
        static std::string drain(int fd)
        {
            std::string got;
            char buffer[256];
            for (ssize_t n; (n = read(fd, buffer, sizeof(buffer))) > 0;)
                got.append(buffer, size_t(n));
            close(fd);
            return got;
        }

        fs::path m_dir;
    };

#define NEED_ROOT()                                                                                                    \
    if (!root())                                                                                                       \
    GTEST_SKIP() << "needs root to give nodes to another user (chown)"

    TEST_F(OutputTrustTest, AFifoOfAnotherUserIsRefused)
    {
        NEED_ROOT();
        ASSERT_EQ(mkfifo(path("victim.ppe").c_str(), 0666), 0);
        ASSERT_EQ(chown(path("victim.ppe").c_str(), kOther, kOther), 0);
        const int fd = reader(path("victim.ppe"));
        const char* refusal = nullptr;
        EXPECT_EQ(writeOutputFile(path("victim.ppe").c_str(), "secret\n", 7, OutputName::Given, &refusal), EPERM);
        EXPECT_STREQ(refusal, "a FIFO of another user");
        EXPECT_EQ(drain(fd), "");
    }

    TEST_F(OutputTrustTest, ASymlinkOfAnotherUserToAFifoIsRefused)
    {
        NEED_ROOT();
        ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
        fs::create_symlink(path("fifo"), path("victim.ppe"));
        ASSERT_EQ(lchown(path("victim.ppe").c_str(), kOther, kOther), 0);
        const int fd = reader(path("fifo"));
        const char* refusal = nullptr;
        EXPECT_EQ(writeOutputFile(path("victim.ppe").c_str(), "secret\n", 7, OutputName::Given, &refusal), EPERM);
        EXPECT_STREQ(refusal, "a symlink of another user leads there");
        EXPECT_EQ(drain(fd), "");
        EXPECT_TRUE(fs::is_symlink(path("victim.ppe")));
    }

    TEST_F(OutputTrustTest, AFifoInADirectoryOfAnotherUserIsRefused)
    {
        NEED_ROOT();
        fs::create_directory(path("theirs"));
        ASSERT_EQ(mkfifo(path("theirs/fifo").c_str(), 0600), 0);
        ASSERT_EQ(chown(path("theirs").c_str(), kOther, kOther), 0);
        const int fd = reader(path("theirs/fifo"));
        const char* refusal = nullptr;
        EXPECT_EQ(writeOutputFile(path("theirs/fifo").c_str(), "x", 1, OutputName::Given, &refusal), EPERM);
        EXPECT_STREQ(refusal, "it is in a directory of another user");
        EXPECT_EQ(drain(fd), "");
    }

    // A block device is a disk: a profile is never written over one, whoever named it.
    TEST_F(OutputTrustTest, ABlockDeviceIsNeverWrittenOver)
    {
        NEED_ROOT();
        // Major 240 is for local/experimental use: no driver answers it, should anything open it.
        if (mknod(path("disk").c_str(), S_IFBLK | 0600, makedev(240, 0)) != 0)
            GTEST_SKIP() << "cannot make a block device node here: " << std::strerror(errno);
        const char* refusal = nullptr;
        EXPECT_EQ(writeOutputFile(path("disk").c_str(), "x", 1, OutputName::Given, &refusal), EPERM);
        EXPECT_STREQ(refusal, "a block device is never written over");
        struct stat st { };
        ASSERT_EQ(lstat(path("disk").c_str(), &st), 0);
        EXPECT_TRUE(S_ISBLK(st.st_mode));
    }

    // The user's own symlink to the user's own FIFO: that is what they asked for.
    TEST_F(OutputTrustTest, AnOwnSymlinkToAnOwnFifoIsWrittenInto)
    {
        ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
        fs::create_symlink("fifo", path("out.ppe"));
        const int fd = reader(path("fifo"));
        EXPECT_EQ(writeOutputFile(path("out.ppe").c_str(), "mine\n", 5, OutputName::Given), 0);
        EXPECT_EQ(drain(fd), "mine\n");
        EXPECT_TRUE(fs::is_symlink(path("out.ppe")));
    }

    // Another user's symlink at a made-up name is replaced, never followed.
    TEST_F(OutputTrustTest, AMadeUpNameNeverFollowsASymlink)
    {
        ASSERT_EQ(mkfifo(path("fifo").c_str(), 0600), 0);
        fs::create_symlink("fifo", path("prog.123.ppe"));
        const int fd = reader(path("fifo"));
        EXPECT_EQ(writeOutputFile(path("prog.123.ppe").c_str(), "profile\n", 8, OutputName::MadeUp), 0);
        EXPECT_EQ(drain(fd), "");
        EXPECT_TRUE(fs::is_regular_file(fs::symlink_status(path("prog.123.ppe"))));
        EXPECT_TRUE(fs::is_symlink(path("prog.123.ppe.~1~")));
    }

    TEST_F(OutputTrustTest, OwnDirectories)
    {
        bool foreign = true;
        fs::create_directory(path("mine"));
        EXPECT_TRUE(ownDirectoryAt(path("mine").c_str(), &foreign));
        EXPECT_FALSE(foreign);
        EXPECT_TRUE(ownDirectoryAt((path("mine") + "/").c_str(), &foreign));
        fs::create_directory_symlink("mine", path("link"));
        EXPECT_TRUE(ownDirectoryAt(path("link").c_str(), &foreign));
        EXPECT_TRUE(ownDirectoryAt("/", &foreign)) << "root's";
        EXPECT_FALSE(ownDirectoryAt(path("absent").c_str(), &foreign));
        EXPECT_FALSE(foreign);
        std::FILE* f = std::fopen(path("file").c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fclose(f);
        EXPECT_FALSE(ownDirectoryAt(path("file").c_str(), &foreign));
        EXPECT_FALSE(foreign);
    }

    // issue 32: `mkdir -m 777 /tmp/shared/run.ppe` by another user turned the output into per-process
    // files inside it; so did their symlink to a directory of root's.
    TEST_F(OutputTrustTest, DirectoriesOfAnotherUserAreNotOwn)
    {
        NEED_ROOT();
        bool foreign = false;
        fs::create_directory(path("theirs"));
        ASSERT_EQ(chmod(path("theirs").c_str(), 0777), 0);
        ASSERT_EQ(chown(path("theirs").c_str(), kOther, kOther), 0);
        EXPECT_FALSE(ownDirectoryAt(path("theirs").c_str(), &foreign));
        EXPECT_TRUE(foreign);
        fs::create_directory(path("mine"));
        fs::create_directory_symlink("mine", path("their-link"));
        ASSERT_EQ(lchown(path("their-link").c_str(), kOther, kOther), 0);
        foreign = false;
        EXPECT_FALSE(ownDirectoryAt((path("their-link") + "/").c_str(), &foreign));
        EXPECT_TRUE(foreign);
    }

} // namespace
} // namespace ppe
