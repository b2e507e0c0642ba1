// Issue 32, reading is bounded: the real ppeout and ppe launcher on what another user can leave
// where they read (a device, a FIFO, a symlink to one in a merged directory, a huge file of text,
// a damaged profile among many ranks' profiles). Each run has a deadline and an address-space
// limit, and is measured (wall time, peak RSS by wait4).
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;

    struct Bounded {
        bool ended = false; // before the deadline (else killed at it)
        int status = -1; // exit status, -1 when killed by a signal
        double seconds = 0;
        long maxRssKib = 0;
        std::string err;
    };

#if defined(__SANITIZE_ADDRESS__)
    constexpr bool kSanitized = true;
#elif defined(__has_feature)
    constexpr bool kSanitized = __has_feature(address_sanitizer);
#else
    constexpr bool kSanitized = false;
#endif

    // Runs argv with a deadline, 4 GiB of address space at most (not under ASan, whose shadow
    // memory is reserved address space: PPE_SANITIZE builds the tools with it too), stdout to
    // /dev/null; polls its end.
    Bounded runBounded(const std::vector<std::string>& argv, double deadline, const std::string& errPath)
    {
        const auto start = std::chrono::steady_clock::now();
        const pid_t pid = fork();
        if (pid == 0) {
            const rlimit space { rlim_t(4) << 30, rlim_t(4) << 30 };
            if (!kSanitized)
                setrlimit(RLIMIT_AS, &space);
            const int out = open("/dev/null", O_WRONLY),
                      err = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
            dup2(out, 1);
            dup2(err, 2);
            std::vector<char*> args;
            for (const std::string& a : argv)
                args.push_back(const_cast<char*>(a.c_str()));
            args.push_back(nullptr);
            execv(args[0], args.data());
            _exit(127);
        }
        Bounded b;
        int status = 0;
        rusage usage {};
        for (;;) {
            b.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (wait4(pid, &status, WNOHANG, &usage) == pid) {
                b.ended = true;
                break;
            }
            if (b.seconds > deadline) {
                kill(pid, SIGKILL);
                wait4(pid, &status, 0, &usage);
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        b.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        b.maxRssKib = usage.ru_maxrss;
        b.err = readFile(errPath);
        return b;
    }

    std::string describe(const Bounded& b)
    {
        return "ended " + std::to_string(b.ended) + " status " + std::to_string(b.status) + " in "
            + std::to_string(b.seconds) + " s, peak " + std::to_string(b.maxRssKib / 1024) + " MiB; stderr: " + b.err;
    }

    // Real profiles of the example simp, one per rank, in `dir`.
    void profileRanks(const TempDir& dir, const std::string& sub, int ranks)
    {
        std::filesystem::create_directories(dir.file(sub));
        for (int r = 0; r < ranks; ++r) {
            const RunResult run = runProgram({ kExamples + "/simp", "100000000003" },
                { { "PPE_ON", "1" }, { "PPE_OUT", dir.file(sub + "/simp.rank" + std::to_string(r) + ".ppe") } });
            ASSERT_EQ(run.status, 0) << run.err;
        }
    }

    size_t count(const std::string& text, const std::string& what)
    {
        size_t n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
            ++n;
        return n;
    }

    TEST(SecurityInput, DevZeroEndsWithinASecondInBoundedMemory)
    {
        TempDir dir;
        const Bounded b = runBounded({ PPEOUT, "/dev/zero", "-" }, 10, dir.file("err"));
        ASSERT_TRUE(b.ended) << describe(b);
        EXPECT_EQ(b.status, 1) << describe(b);
        EXPECT_LT(b.seconds, 1.0) << describe(b);
        EXPECT_LT(b.maxRssKib, 256 * 1024) << describe(b);
        EXPECT_NE(b.err.find("/dev/zero: binary data: not a ppe profile"), std::string::npos) << b.err;
        EXPECT_EQ(count(b.err, "\n"), 1u) << "one line: " << b.err;
    }

    TEST(SecurityInput, DeviceSymlinkAndFifoInAMergedDirectoryAreSkipped)
    {
        TempDir dir;
        profileRanks(dir, "run", 2);
        ASSERT_EQ(symlink("/dev/zero", dir.file("run/zero.ppe").c_str()), 0);
        ASSERT_EQ(mkfifo(dir.file("run/fifo.ppe").c_str(), 0600), 0);
        const Bounded b = runBounded({ PPEOUT, dir.file("run"), dir.file("run.ppl") }, 30, dir.file("err"));
        ASSERT_TRUE(b.ended) << describe(b);
        ASSERT_EQ(b.status, 0) << describe(b);
        EXPECT_LT(b.maxRssKib, 512 * 1024) << describe(b);
        EXPECT_NE(b.err.find(dir.file("run/zero.ppe") + ": a character device, not a regular file: skipped"),
            std::string::npos)
            << b.err;
        EXPECT_NE(b.err.find(dir.file("run/fifo.ppe") + ": a FIFO, not a regular file: skipped"), std::string::npos)
            << b.err;
        EXPECT_NE(readFile(dir.file("run.ppl")).find(" Merged: 2 profiles"), std::string::npos);
    }

    TEST(SecurityInput, RecoveringAFifoIsAClearErrorWithoutAHang)
    {
        TempDir dir;
        ASSERT_EQ(mkfifo(dir.file("prog.ppe.77.live").c_str(), 0600), 0);
        const Bounded b = runBounded({ PPE_LAUNCHER, "--recover", dir.file("prog.ppe.77.live") }, 10, dir.file("err"));
        ASSERT_TRUE(b.ended) << describe(b);
        EXPECT_EQ(b.status, 1) << describe(b);
        EXPECT_LT(b.seconds, 1.0) << describe(b);
        EXPECT_NE(b.err.find(dir.file("prog.ppe.77.live") + ": not a regular file"), std::string::npos) << b.err;
        EXPECT_FALSE(fileExists(dir.file("prog.ppe")));
    }

    // 400 MB: a MiB of random text, then a hole (sparse; the old reader took all of it in memory,
    // twice, before it looked at line 1).
    TEST(SecurityInput, LargeRandomFileEndsOnItsFirstLineQuickly)
    {
        TempDir dir;
        const std::string path = dir.file("random.ppe");
        {
            std::ofstream out(path, std::ios::binary);
            std::mt19937 random(32);
            std::string text(1 << 20, ' ');
            for (char& c : text)
                c = random() % 70 == 0 ? '\n' : char(' ' + random() % 95);
            out << text;
        }
        ASSERT_EQ(truncate(path.c_str(), off_t(400) << 20), 0);
        const Bounded b = runBounded({ PPEOUT, path, "-" }, 60, dir.file("err"));
        ASSERT_TRUE(b.ended) << describe(b);
        EXPECT_EQ(b.status, 1) << describe(b);
        EXPECT_LT(b.seconds, 1.0) << describe(b);
        EXPECT_LT(b.maxRssKib, 256 * 1024) << describe(b);
        EXPECT_NE(b.err.find(path + ":1: not a ppe profile"), std::string::npos) << b.err;
    }

    TEST(SecurityInput, DamagedProfileAmongRanksIsSkippedAndCountedOrWithStrictAnError)
    {
        TempDir dir;
        profileRanks(dir, "run", 3);
        const std::string damaged = dir.file("run/simp.rank1.ppe");
        const std::string text = readFile(damaged);
        std::ofstream(damaged, std::ios::binary | std::ios::trunc) << text.substr(0, text.size() / 2);
        const Bounded b = runBounded({ PPEOUT, dir.file("run"), dir.file("run.ppl") }, 30, dir.file("err"));
        ASSERT_TRUE(b.ended) << describe(b);
        ASSERT_EQ(b.status, 0) << describe(b);
        EXPECT_NE(b.err.find("ppeout: warning: " + damaged + ":"), std::string::npos) << b.err;
        EXPECT_NE(b.err.find("(skipped: the merge goes on without it"), std::string::npos) << b.err;
        const std::string report = readFile(dir.file("run.ppl"));
        EXPECT_NE(report.find(" Merged: 2 profiles"), std::string::npos) << report.substr(0, 800);
        EXPECT_NE(report.find(" Skipped: 1 profile(s) that could not be read (" + damaged + ")"), std::string::npos)
            << report.substr(0, 800);
        const Bounded strict
            = runBounded({ PPEOUT, "--strict", dir.file("run"), dir.file("strict.ppl") }, 30, dir.file("err2"));
        ASSERT_TRUE(strict.ended) << describe(strict);
        EXPECT_EQ(strict.status, 1) << describe(strict);
        EXPECT_NE(strict.err.find("ppeout: error: " + damaged + ":"), std::string::npos) << strict.err;
        EXPECT_FALSE(fileExists(dir.file("strict.ppl")));
    }

} // namespace
} // namespace ppe::testing
