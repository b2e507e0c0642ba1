// Reading is bounded (issue 32): a FIFO or a device only when named, never a wait without end, the
// header checked before the rest is read, and every claim of a profile capped with an error that
// names the file, the line and the limit.
#include "golden_profile.h"

#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ppe {
namespace {

    using test::kGoldenText;

    class InputLimits : public ::testing::Test {
    protected:
        void SetUp() override
        {
            char pattern[] = "/tmp/ppe-unit-limits-XXXXXX";
            ASSERT_NE(mkdtemp(pattern), nullptr);
            m_dir = pattern;
        }
        void TearDown() override { std::filesystem::remove_all(m_dir); }

        std::string write(const std::string& name, const std::string& text)
        {
            const std::string path = m_dir + "/" + name;
            std::ofstream(path, std::ios::binary) << text;
            return path;
        }

        std::string fifo(const std::string& name)
        {
            const std::string path = m_dir + "/" + name;
            EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
            return path;
        }

        std::string m_dir;
    };

    // The golden profile with `line` inserted before its 'end'.
    std::string withBeforeEnd(const std::string& lines)
    {
        std::string text(kGoldenText);
        const size_t end = text.rfind("end\n");
        return text.insert(end, lines);
    }

    void expectLimit(const Result<Profile>& r, size_t line, const std::string& fragment)
    {
        ASSERT_FALSE(r.ok()) << "read without an error";
        EXPECT_EQ(r.error().line, line) << r.error().str();
        EXPECT_NE(r.error().message.find(fragment), std::string::npos) << r.error().str();
        EXPECT_NE(r.error().message.find("the limit"), std::string::npos) << r.error().str();
    }

    double seconds(std::chrono::steady_clock::time_point since)
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
    }

    TEST_F(InputLimits, DevZeroNamedEndsAtOnce)
    {
        const auto start = std::chrono::steady_clock::now();
        const Result<Profile> r = readProfile("/dev/zero");
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("binary data"), std::string::npos) << r.error().str();
        EXPECT_LT(seconds(start), 1.0);
    }

    TEST_F(InputLimits, DeviceOrFifoFoundIsRefused)
    {
        const Result<Profile> zero = readProfile("/dev/zero", InputOrigin::Found);
        ASSERT_FALSE(zero.ok());
        EXPECT_NE(zero.error().message.find("a character device, not a regular file"), std::string::npos)
            << zero.error().str();
        const Result<Profile> pipe = readProfile(fifo("rank3.ppe"), InputOrigin::Found);
        ASSERT_FALSE(pipe.ok());
        EXPECT_NE(pipe.error().message.find("a FIFO, not a regular file"), std::string::npos) << pipe.error().str();
    }

    TEST_F(InputLimits, FifoNamedIsReadWhenItsWriterWrites)
    {
        const std::string path = fifo("p.ppe");
        const pid_t child = fork();
        ASSERT_GE(child, 0);
        if (child == 0) {
            std::ofstream(path, std::ios::binary) << kGoldenText; // opens when the reader is there
            _exit(0);
        }
        const Result<Profile> r = readProfile(path);
        int status = 0;
        waitpid(child, &status, 0);
        ASSERT_TRUE(r.ok()) << r.error().str();
        EXPECT_EQ(r->pid, 4242u);
    }

    // A FIFO named directly that nobody writes to: an error after kInputIdleSeconds, not a hang.
    TEST_F(InputLimits, FifoNobodyWritesToEndsWithAnError)
    {
        const auto start = std::chrono::steady_clock::now();
        const Result<Profile> r = readProfile(fifo("silent.ppe"));
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("nothing to read for 10 s"), std::string::npos) << r.error().str();
        EXPECT_LT(seconds(start), kInputIdleSeconds + 5.0);
    }

    TEST_F(InputLimits, LongLineIsRefusedWithItsNumber)
    {
        expectLimit(readProfile(write("long.ppe", withBeforeEnd("# " + std::string(kMaxProfileLineBytes, 'x') + "\n"))),
            test::kGoldenLines, "longer than 65536 bytes");
        expectLimit(parseProfile(withBeforeEnd("# " + std::string(kMaxProfileLineBytes, 'x') + "\n"), "long.ppe"),
            test::kGoldenLines, "longer than 65536 bytes");
    }

    TEST_F(InputLimits, CommandIsCapped)
    {
        std::string command = "command";
        for (int i = 0; i < 20; ++i)
            command += " " + std::string(1000, 'a');
        expectLimit(parseProfile(withBeforeEnd(command + "\n"), "c.ppe"), test::kGoldenLines, "command: longer");
    }

    TEST_F(InputLimits, ThreadRecordsAreCapped)
    {
        std::string threads;
        for (size_t i = 0; i <= kMaxProfileThreads; ++i)
            threads += "thread " + std::to_string(i) + " 0 0 0 \"t\"\n";
        const Result<Profile> r = readProfile(write("t.ppe", withBeforeEnd(threads)));
        expectLimit(r, test::kGoldenLines + kMaxProfileThreads, "more than 65536 'thread' records");
    }

    // Objects 2 .. kMaxProfileObjects after the golden profile's two (lines 41-42): the one past
    // the limit is the error, on its own line.
    TEST_F(InputLimits, ObjectRecordsAreCapped)
    {
        std::string text(kGoldenText);
        std::string objects;
        for (size_t i = 2; i <= kMaxProfileObjects; ++i)
            objects += "object " + std::to_string(i) + " 0 none \"/lib/o" + std::to_string(i) + ".so\"\n";
        text.insert(text.find("object-hit "), objects);
        const Result<Profile> r = readProfile(write("o.ppe", text));
        expectLimit(r, 42 + kMaxProfileObjects - 1, "more than 4096 'object' records");
    }

    TEST_F(InputLimits, BinCountIsCapped)
    {
        std::string text(kGoldenText);
        const size_t at = text.find("bin-count ");
        text.replace(at, text.find('\n', at) - at, "bin-count 99999999999");
        const Result<Profile> r = parseProfile(text, "b.ppe");
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("bin-count 99999999999 is more than"), std::string::npos) << r.error().str();
    }

    // 64 MiB of random text: refused on line 1 after a bounded prefix, in little time and memory.
    TEST_F(InputLimits, LargeRandomTextEndsOnItsFirstLine)
    {
        const std::string path = m_dir + "/random.ppe";
        {
            std::ofstream out(path, std::ios::binary);
            std::mt19937 random(32);
            std::string chunk(1 << 20, ' ');
            for (int i = 0; i < 64; ++i) {
                for (char& c : chunk)
                    c = random() % 60 == 0 ? '\n' : char(' ' + random() % 95); // printable lines
                out << chunk;
            }
        }
        rusage before {};
        getrusage(RUSAGE_SELF, &before);
        const auto start = std::chrono::steady_clock::now();
        const Result<Profile> r = readProfile(path);
        rusage after {};
        getrusage(RUSAGE_SELF, &after);
        ASSERT_FALSE(r.ok());
        EXPECT_EQ(r.error().line, 1u) << r.error().str();
        EXPECT_LT(seconds(start), 0.5);
        EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 8 * 1024) << "KiB more at the peak";
    }

    TEST_F(InputLimits, RecoveringAFifoIsAnErrorWithoutWaiting)
    {
        const auto start = std::chrono::steady_clock::now();
        const Result<std::string> r = recoverLiveFile(fifo("p.ppe.12.live"));
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("not a regular file"), std::string::npos) << r.error().str();
        EXPECT_LT(seconds(start), 1.0);
        EXPECT_FALSE(recoverLiveFile("/dev/zero").ok());
    }

    TEST_F(InputLimits, RecoveringAnotherFileReadsOnlyItsHeader)
    {
        const std::string path = m_dir + "/big.live";
        {
            std::ofstream out(path, std::ios::binary);
            const std::string chunk(1 << 20, 'x');
            for (int i = 0; i < 32; ++i)
                out << chunk;
        }
        rusage before {};
        getrusage(RUSAGE_SELF, &before);
        const Result<std::string> r = recoverLiveFile(path);
        rusage after {};
        getrusage(RUSAGE_SELF, &after);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().message.find("not a ppe live profile"), std::string::npos) << r.error().str();
        EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 8 * 1024) << "KiB more at the peak";
    }

} // namespace
} // namespace ppe
