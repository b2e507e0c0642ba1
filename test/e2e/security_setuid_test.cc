// A set-user-ID or set-group-ID program linked with libppe, run by another user, never obeys that
// user's environment (issue 32: PPE_OUT=/root/secret/owned.ppe used to be written as root, and an
// existing file there renamed to a backup). Run as root, with the unprivileged user `nobody` as
// the caller; the programs are the examples simp (libppe.so) and simp_static (libppe.a).
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace ppe::testing {
namespace {

    namespace fs = std::filesystem;

    const std::string kExamples = PPE_EXAMPLES_DIR;
    constexpr uid_t kNobody = 65534;

    int countOf(const std::string& text, const std::string& what)
    {
        int n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
            ++n;
        return n;
    }

    // T/bin holds the programs (root-owned), T/secret is root's 0700 directory the caller aims at,
    // T/user belongs to the caller.
    class SetuidTest : public ::testing::TestWithParam<const char*> {
    protected:
        TempDir m_dir;
        std::string m_bin, m_secret, m_user;

        void SetUp() override
        {
            if (geteuid() != 0)
                GTEST_SKIP() << "needs root to make a set-user-ID program and to run it as another user";
            if (access("/usr/bin/setpriv", X_OK) != 0)
                GTEST_SKIP() << "setpriv (util-linux) is missing: no way to run the program as nobody";
            m_bin = m_dir.file("bin");
            m_secret = m_dir.file("secret");
            m_user = m_dir.file("user");
            fs::create_directory(m_bin);
            fs::create_directory(m_secret);
            fs::create_directory(m_user);
            ASSERT_EQ(chmod(m_dir.path().c_str(), 0755), 0);
            ASSERT_EQ(chmod(m_bin.c_str(), 0755), 0);
            ASSERT_EQ(chmod(m_secret.c_str(), 0700), 0);
            ASSERT_EQ(chown(m_user.c_str(), kNobody, kNobody), 0);
        }

        // The example with `mode` (e.g. 04755), owned by root, where nobody reaches it and all it
        // loads (the build tree may lie in root's 0700 home): simp_static is copied; simp is linked
        // again against a copy of libppe.so in T/lib, found there through its RUNPATH.
        std::string install(const std::string& name, mode_t mode)
        {
            const std::string to = m_bin + "/" + name + "." + std::to_string(mode);
            if (name == "simp_static") {
                fs::copy_file(kExamples + "/" + name, to, fs::copy_options::overwrite_existing);
            } else {
                const std::string lib = m_dir.file("lib");
                fs::create_directories(lib);
                EXPECT_EQ(chmod(lib.c_str(), 0755), 0);
                fs::copy_file(PPE_LIBRARY, lib + "/libppe.so.0", fs::copy_options::overwrite_existing);
                EXPECT_EQ(chmod((lib + "/libppe.so.0").c_str(), 0755), 0);
                const RunResult cc = runProgram({ "cc", "-O2", "-o", to, std::string(PPE_EXAMPLES_SOURCE) + "/simp.c",
                    "-Wl,--no-as-needed", lib + "/libppe.so.0", "-Wl,--as-needed", "-Wl,-rpath," + lib, "-lm" });
                EXPECT_TRUE(cc.exited && cc.status == 0) << cc.err;
            }
            EXPECT_EQ(chown(to.c_str(), 0, 0), 0);
            EXPECT_EQ(chmod(to.c_str(), mode), 0);
            return to;
        }

        RunResult runAsNobody(const std::string& program, std::vector<EnvChange> env)
        {
            return runProgram(
                { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", program, "1000003" },
                env, m_user);
        }

        // Where exec grants no set-ID (a nosuid mount; no_new_privs, which a seccomp sandbox such as
        // deny_perf_events sets) the program runs as its caller and the collector rightly obeys
        // the caller: then there is nothing to test.
        void requireSetuidTakesEffect(const std::string& program)
        {
            struct stat st { };
            ASSERT_EQ(stat(program.c_str(), &st), 0);
            if (!(st.st_mode & (S_ISUID | S_ISGID)))
                GTEST_SKIP() << "the set-ID bits did not stay on " << program;
            struct statvfs fs { };
            if (statvfs(program.c_str(), &fs) == 0 && (fs.f_flag & ST_NOSUID))
                GTEST_SKIP() << program << " is on a nosuid mount: exec grants no set-ID";
            if (readFile("/proc/self/status").find("NoNewPrivs:\t1") != std::string::npos)
                GTEST_SKIP() << "no_new_privs is set (a seccomp sandbox?): exec grants no set-ID";
        }
    };

    // The control: the same program without the set-ID bits does profile for nobody, so the
    // cases below would see a profile if the collector obeyed the environment.
    TEST_P(SetuidTest, WithoutSetIdBitsTheCallerGetsAProfile)
    {
        const std::string program = install(GetParam(), 0755);
        const std::string out = m_user + "/mine.ppe";
        const RunResult run = runAsNobody(program, { { "PPE_ON", "1" }, { "PPE_OUT", out } });
        EXPECT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_TRUE(fileExists(out)) << run.err;
    }

    TEST_P(SetuidTest, SetuidProgramIgnoresTheCallersOutputName)
    {
        for (const mode_t mode : { mode_t(04755), mode_t(02755) }) {
            const std::string program = install(GetParam(), mode);
            requireSetuidTakesEffect(program);
            if (IsSkipped())
                return;
            const std::string target = m_secret + "/owned.ppe";
            const RunResult run = runAsNobody(program,
                { { "PPE_ON", "1" }, { "PPE_OUT", target }, { "PPE_DEFAULT_DIR", m_secret },
                    { "PPE_CHECKPOINT", "1" } });
            EXPECT_TRUE(run.exited && run.status == 0) << run.err;
            EXPECT_FALSE(fileExists(target)) << "mode " << std::oct << mode << ": " << run.err;
            EXPECT_TRUE(fs::is_empty(m_secret)) << "mode " << std::oct << mode << ": a file in root's directory";
            EXPECT_TRUE(fs::is_empty(m_user)) << "mode " << std::oct << mode << ": no profile is written at all";
            EXPECT_EQ(countOf(run.err, "ppe:"), 1) << run.err;
            EXPECT_EQ(countOf(run.err, "AT_SECURE"), 1) << run.err;
        }
    }

    // An existing file of root's stays as it was: not renamed to a backup, not replaced.
    TEST_P(SetuidTest, SetuidProgramLeavesAnExistingFileAlone)
    {
        const std::string program = install(GetParam(), 04755);
        requireSetuidTakesEffect(program);
        if (IsSkipped())
            return;
        const std::string target = m_secret + "/owned.ppe";
        {
            FILE* f = fopen(target.c_str(), "w");
            ASSERT_NE(f, nullptr);
            fputs("root's own\n", f);
            fclose(f);
            ASSERT_EQ(chmod(target.c_str(), 0600), 0);
        }
        const RunResult run = runAsNobody(program, { { "PPE_ON", "1" }, { "PPE_OUT", target } });
        EXPECT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_EQ(readFile(target), "root's own\n");
        EXPECT_FALSE(fileExists(target + ".~1~"));
        struct stat st { };
        ASSERT_EQ(stat(target.c_str(), &st), 0);
        EXPECT_EQ(st.st_mode & 07777, 0600u);
    }

    // Without PPE_ON the set-user-ID program says nothing at all.
    TEST_P(SetuidTest, SetuidProgramWithoutPpeOnIsSilent)
    {
        const std::string program = install(GetParam(), 04755);
        requireSetuidTakesEffect(program);
        if (IsSkipped())
            return;
        const RunResult run = runAsNobody(program, { { "PPE_OUT", m_secret + "/owned.ppe" } });
        EXPECT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_EQ(countOf(run.err, "ppe:"), 0) << run.err;
        EXPECT_TRUE(fs::is_empty(m_secret));
    }

    INSTANTIATE_TEST_SUITE_P(LinkModes, SetuidTest, ::testing::Values("simp", "simp_static"));

} // namespace
} // namespace ppe::testing
