// Nobody else steers where a profile goes, and nobody else can stop it from being written (issue
// 32): root is the victim, running a program under the preloaded collector, and `nobody` the
// attacker, who prepares the shared directory (T/shared, 1777 like /tmp) with the commands of the
// issue. Each attack ends with the protected device or FIFO unchanged, the victim's profile where
// it should be (or in the current directory, T/work) and one line saying why. And the programs a
// profiled program runs write where it writes, never beside their executables (issue 33).
// docs/security.md "Output paths" lists the attacks.
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <regex>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ppe::testing {
namespace {

    namespace fs = std::filesystem;

    const std::string kExamples = PPE_EXAMPLES_DIR;
    const std::string kSimp = kExamples + "/simp_plain"; // no libppe linked: preloaded
    const std::string kLibrary = PPE_LIBRARY;
    constexpr uid_t kNobody = 65534;

    int countOf(const std::string& text, const std::string& what)
    {
        int n = 0;
        for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
            ++n;
        return n;
    }

    std::vector<std::string> namesIn(const std::string& dir)
    {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(dir))
            names.push_back(entry.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

    // Polls for a file whose name matches `pattern` in `dir`; "" at the deadline.
    std::string waitForFile(const std::string& dir, const std::regex& pattern)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < deadline) {
            for (const std::string& name : namesIn(dir))
                if (std::regex_match(name, pattern))
                    return name;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return "";
    }

    bool waitForText(const std::string& path, const std::string& text)
    {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
        while (std::chrono::steady_clock::now() < deadline) {
            if (readFile(path).find(text) != std::string::npos)
                return true;
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        return false;
    }

    class SecurityOutputTest : public ::testing::Test {
    protected:
        TempDir m_dir;
        std::string m_shared, m_work, m_protected;

        void SetUp() override
        {
            if (geteuid() != 0)
                GTEST_SKIP() << "needs root: the victim is root, the attacker the unprivileged user nobody";
            if (access("/usr/bin/setpriv", X_OK) != 0)
                GTEST_SKIP() << "setpriv (util-linux) is missing: no way to act as nobody";
            m_shared = m_dir.file("shared");
            m_work = m_dir.file("work");
            m_protected = m_dir.file("protected");
            for (const std::string& d : { m_shared, m_work, m_protected })
                fs::create_directory(d);
            ASSERT_EQ(chmod(m_dir.path().c_str(), 0755), 0);
            ASSERT_EQ(chmod(m_shared.c_str(), 01777), 0);
        }

        // A copy of /bin/sh in `bin` and of simp as `system`/simp_plain, each in a folder of its own.
        void installShellAndProgram(const std::string& bin, const std::string& system)
        {
            fs::create_directory(bin);
            fs::create_directory(system);
            fs::copy_file("/bin/sh", bin + "/sh");
            fs::copy_file(kSimp, system + "/simp_plain");
            for (const std::string& p : { bin + "/sh", system + "/simp_plain" })
                ASSERT_EQ(chmod(p.c_str(), 0755), 0);
        }

        // A command of the attacker's, as nobody.
        void attack(const std::vector<std::string>& command)
        {
            std::vector<std::string> argv
                = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--" };
            argv.insert(argv.end(), command.begin(), command.end());
            const RunResult run = runProgram(argv);
            ASSERT_TRUE(run.exited && run.status == 0) << command[0] << ": " << run.err;
        }

        std::vector<EnvChange> victimEnvironment(const std::string& out)
        {
            return { { "LD_PRELOAD", kLibrary }, { "PPE_ON", "1" }, { "PPE_OUT", out }, { "PPE_DEFAULT_DIR", "", true },
                { "PPE_LAUNCHED", "", true } };
        }

        // The victim, root, profiles simp with PPE_OUT=`out`, in T/work.
        RunResult victim(const std::string& out)
        {
            const RunResult run = runProgram({ kSimp, "1000003" }, victimEnvironment(out), m_work);
            EXPECT_TRUE(run.exited && run.status == 0) << run.err;
            return run;
        }

        // A profile at `path`, readable, written by the run.
        void expectProfile(const std::string& path, const RunResult& run)
        {
            const auto profile = readProfile(path);
            EXPECT_TRUE(bool(profile)) << path << ": " << (profile ? "" : profile.error().str()) << "\n" << run.err;
            EXPECT_EQ(countOf(run.err, "ppe: output file is " + path), 1) << run.err;
        }

        // Exactly one line saying why the profile went to the current directory (a live file that
        // could not be made says why too, on its own line).
        void expectFallback(const RunResult& run, const std::string& why)
        {
            EXPECT_EQ(countOf(run.err, "writing to the current directory"), 1) << run.err;
            EXPECT_EQ(countOf(run.err, why + "): writing to the current directory"), 1) << run.err;
            EXPECT_EQ(countOf(run.err, ".live"), 0) << "no live file is left behind: " << run.err;
        }
    };

    // A reader of a FIFO: a child process (as `uid`) holding it open without blocking, counting what
    // arrives until told to stop.
    class FifoReader {
    public:
        FifoReader(const std::string& fifo, uid_t uid)
        {
            int ready[2], result[2];
            if (pipe(ready) != 0 || pipe(result) != 0 || pipe(m_stop) != 0)
                return;
            m_pid = fork();
            if (m_pid == 0)
                readInChild(fifo, uid, ready[1], result[1]);
            close(ready[1]);
            close(result[1]);
            close(m_stop[0]);
            char c = 0;
            m_ready = read(ready[0], &c, 1) == 1 && c == 'r';
            close(ready[0]);
            m_result = result[0];
        }

        bool ready() const { return m_ready; }

        // Stops the reader; the bytes it read.
        long stop()
        {
            close(m_stop[1]);
            long got = -1;
            if (read(m_result, &got, sizeof(got)) != sizeof(got))
                got = -1;
            close(m_result);
            waitpid(m_pid, nullptr, 0);
            return got;
        }

    private:
        [[noreturn]] void readInChild(const std::string& fifo, uid_t uid, int ready, int result)
        {
            close(m_stop[1]);
            if ((uid && (setgid(uid) != 0 || setuid(uid) != 0)))
                _exit(1);
            const int fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
            if (fd < 0 || write(ready, "r", 1) != 1)
                _exit(1);
            long got = 0;
            char buffer[4096];
            pollfd fds[2] = { { fd, POLLIN, 0 }, { m_stop[0], POLLIN, 0 } };
            while (poll(fds, 2, -1) >= 0 && !(fds[1].revents & (POLLIN | POLLHUP))) {
                const ssize_t n = read(fd, buffer, sizeof(buffer));
                got += n > 0 ? n : 0;
                if (n == 0) // the writer closed: wait for the stop alone
                    fds[0].fd = -1;
            }
            if (write(result, &got, sizeof(got)) != sizeof(got))
                _exit(1);
            _exit(0);
        }

        pid_t m_pid = -1;
        int m_stop[2] = { -1, -1 };
        int m_result = -1;
        bool m_ready = false;
    };

    // `ln -s /dev/loop0 /tmp/victim.ppe` had root's profile written over a block device.
    TEST_F(SecurityOutputTest, AnotherUsersSymlinkToABlockDeviceIsNotFollowed)
    {
        const std::string backing = m_protected + "/disk.img";
        std::ofstream(backing).close();
        fs::resize_file(backing, 1 << 20);
        const RunResult setup = runProgram({ "losetup", "--find", "--show", backing });
        if (!setup.exited || setup.status != 0)
            GTEST_SKIP() << "no loop device here (losetup: " << setup.err << ")";
        const std::string device = setup.out.substr(0, setup.out.find('\n'));
        attack({ "ln", "-s", device, m_shared + "/victim.ppe" });
        const RunResult run = victim(m_shared + "/victim.ppe");
        std::string head(65536, '\0');
        const int fd = open(device.c_str(), O_RDONLY);
        const bool read = fd >= 0 && pread(fd, head.data(), head.size(), 0) == ssize_t(head.size());
        close(fd);
        runProgram({ "losetup", "--detach", device });
        ASSERT_TRUE(read) << device;
        EXPECT_EQ(head, std::string(65536, '\0')) << "the block device was written";
        expectProfile(m_work + "/victim.ppe", run);
        expectFallback(run, "a symlink of another user leads there");
        EXPECT_TRUE(fs::is_symlink(m_shared + "/victim.ppe"));
    }

    // The same with a FIFO of root's as the target: its reader gets nothing.
    TEST_F(SecurityOutputTest, AnotherUsersSymlinkToAFifoIsNotFollowed)
    {
        const std::string fifo = m_protected + "/root.fifo";
        ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
        FifoReader reader(fifo, 0);
        ASSERT_TRUE(reader.ready());
        attack({ "ln", "-s", fifo, m_shared + "/victim.ppe" });
        const RunResult run = victim(m_shared + "/victim.ppe");
        EXPECT_EQ(reader.stop(), 0) << "root's FIFO got the profile";
        expectProfile(m_work + "/victim.ppe", run);
        expectFallback(run, "a symlink of another user leads there");
    }

    // `mkfifo /tmp/victim2.ppe` let the attacker read the profile, secret arguments included.
    TEST_F(SecurityOutputTest, AnotherUsersFifoAtTheOutputNameGetsNothing)
    {
        const std::string fifo = m_shared + "/victim2.ppe";
        attack({ "mkfifo", "-m", "666", fifo });
        FifoReader attacker(fifo, kNobody);
        ASSERT_TRUE(attacker.ready());
        const RunResult run = victim(fifo);
        EXPECT_EQ(attacker.stop(), 0) << "the attacker read the profile";
        expectProfile(m_work + "/victim2.ppe", run);
        expectFallback(run, "a FIFO of another user");
    }

    // `mkdir -m 777 /tmp/shared/run.ppe` turned the output into per-process files inside it, where a
    // symlink planted once the live file announced the pid led the profile anywhere.
    TEST_F(SecurityOutputTest, AnotherUsersDirectoryAtTheOutputNameIsNotFilled)
    {
        const std::string dir = m_shared + "/run.ppe";
        attack({ "mkdir", "-m", "777", dir });
        const RunResult run = victim(dir);
        EXPECT_EQ(namesIn(dir), std::vector<std::string> {}) << "files in the attacker's directory";
        std::smatch m;
        ASSERT_TRUE(
            std::regex_search(run.err, m, std::regex("output file is (" + m_work + "/simp_plain\\.[0-9]+\\.ppe)")))
            << run.err;
        expectProfile(m[1], run);
        EXPECT_EQ(countOf(run.err, "is a directory of another user"), 1) << run.err;
    }

    // Runs a shell, preloaded, until the test opens and closes `gate`: the victim is held while the
    // attacker acts on the pid its live file announced. (Not cat: coreutils close stderr at exit,
    // before the collector's last line.)
    Running heldVictim(const std::vector<EnvChange>& env, const std::string& gate, const std::string& cwd)
    {
        EXPECT_EQ(mkfifo(gate.c_str(), 0600), 0);
        return startProgram({ "/bin/sh", "-c", "read line < " + gate + "; true" }, env, cwd);
    }

    RunResult release(const Running& running, const std::string& gate)
    {
        const int fd = open(gate.c_str(), O_WRONLY); // blocks until the shell opens it
        close(fd);
        return waitProgram(running);
    }

    // The 100 temporary names DIR/.NAME.tmp.PID.0..99 were predictable once the live file named
    // the pid: making them all gave "cannot write ...: File exists" and no profile.
    TEST_F(SecurityOutputTest, PredictableTemporaryNamesStopNothing)
    {
        const std::string out = m_shared + "/victim.ppe";
        const Running running = heldVictim(victimEnvironment(out), m_protected + "/gate", m_work);
        const std::string live = waitForFile(m_shared, std::regex(R"(victim\.ppe\.[0-9]+\.live)"));
        ASSERT_NE(live, "") << "no live file announced the pid";
        const std::string pid = live.substr(11, live.size() - 16);
        attack({ "sh", "-c",
            "i=0; while [ $i -lt 100 ]; do : > " + m_shared + "/.victim.ppe.tmp." + pid + ".$i; i=$((i+1)); done" });
        const RunResult run = release(running, m_protected + "/gate");
        EXPECT_TRUE(run.exited && run.status == 0) << run.err;
        expectProfile(out, run);
        EXPECT_EQ(countOf(run.err, "cannot write"), 0) << run.err;
    }

    // One empty `v.ppe.~99999999~` made by anybody stopped every later profile of that name.
    TEST_F(SecurityOutputTest, AHugeBackupNumberStopsNothing)
    {
        const std::string out = m_shared + "/v.ppe";
        std::ofstream(out) << "the previous profile\n";
        attack({ "touch", out + ".~99999999~" });
        const RunResult run = victim(out);
        expectProfile(out, run);
        EXPECT_EQ(readFile(out + ".~1~"), "the previous profile\n");
        EXPECT_EQ(countOf(run.err, "cannot write"), 0) << run.err;
    }

    // `.~18446744073709551615~` wrapped the backup counter to `.~0~`.
    TEST_F(SecurityOutputTest, ABackupNumberThatWouldOverflowIsIgnored)
    {
        const std::string out = m_shared + "/v.ppe";
        std::ofstream(out) << "the previous profile\n";
        attack({ "touch", out + ".~18446744073709551615~" });
        const RunResult run = victim(out);
        expectProfile(out, run);
        EXPECT_FALSE(fileExists(out + ".~0~")) << "the counter wrapped";
        EXPECT_EQ(readFile(out + ".~1~"), "the previous profile\n");
    }

    // A name too long for the file system lost the profile (ENAMETOOLONG); now it goes to the
    // current directory, cut to 200 bytes.
    TEST_F(SecurityOutputTest, ANameTooLongFallsBackToTheCurrentDirectory)
    {
        const std::string name = std::string(296, 'n') + ".ppe";
        const RunResult run = victim(m_shared + "/" + name);
        expectProfile(m_work + "/" + std::string(196, 'n') + ".ppe", run);
        expectFallback(run, "File name too long");
    }

    // Another user's FIFO planted at the made-up per-process name (DIR/PROG.PID.ppe, the pid from
    // the live file) stopped the profile with EEXIST; now it goes to the current directory and the
    // live file is removed.
    TEST_F(SecurityOutputTest, ANodeAtAMadeUpNameFallsBackToTheCurrentDirectory)
    {
        const Running running = heldVictim(victimEnvironment(m_shared + "/"), m_protected + "/gate", m_work);
        const std::string live = waitForFile(m_shared, std::regex(R"([a-z]+\.[0-9]+\.ppe\.[0-9]+\.live)"));
        ASSERT_NE(live, "") << "no live file announced the pid";
        const std::string made = live.substr(0, live.find(".ppe.") + 4);
        attack({ "mkfifo", "-m", "666", m_shared + "/" + made });
        FifoReader attacker(m_shared + "/" + made, kNobody);
        ASSERT_TRUE(attacker.ready());
        const RunResult run = release(running, m_protected + "/gate");
        EXPECT_EQ(attacker.stop(), 0) << "the attacker read the profile";
        expectProfile(m_work + "/" + made, run);
        expectFallback(run, "a device or FIFO is at a name ppe made up");
        EXPECT_FALSE(fileExists(m_shared + "/" + live)) << "the live file is left";
    }

    // A program run in the shared directory itself: the current directory cannot take the name
    // another user's node holds. The profile stayed in the live file; now the fallback name gets 8
    // random hex digits (v.1a2b3c4d.ppe), which nobody could plant a node at beforehand.
    TEST_F(SecurityOutputTest, InTheSharedDirectoryItselfTheFallbackNameIsRandom)
    {
        const std::string fifo = m_shared + "/v.ppe";
        attack({ "mkfifo", "-m", "666", fifo });
        FifoReader attacker(fifo, kNobody);
        ASSERT_TRUE(attacker.ready());
        const RunResult run = runProgram({ kSimp, "1000003" }, victimEnvironment(fifo), m_shared);
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_EQ(attacker.stop(), 0) << "the attacker read the profile";
        std::string written;
        for (const std::string& name : namesIn(m_shared))
            if (std::regex_match(name, std::regex(R"(v\.[0-9a-f]{8}\.ppe)")))
                written = name;
        ASSERT_NE(written, "") << run.err;
        expectProfile(m_shared + "/" + written, run);
        expectFallback(run, "a FIFO of another user");
    }

    // A full file system (ENOSPC) lost the profile; now it goes to the current directory.
    TEST_F(SecurityOutputTest, AFullFileSystemFallsBackToTheCurrentDirectory)
    {
        const std::string mount = m_dir.file("full");
        fs::create_directory(mount);
        const RunResult mounted = runProgram({ "mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mount });
        if (!mounted.exited || mounted.status != 0)
            GTEST_SKIP() << "cannot mount a small tmpfs here: " << mounted.err;
        runProgram({ "dd", "if=/dev/zero", "of=" + mount + "/filler", "bs=4k" }); // until ENOSPC
        const RunResult run = victim(mount + "/v.ppe");
        runProgram({ "umount", mount });
        expectProfile(m_work + "/v.ppe", run);
        expectFallback(run, "No space left on device");
    }

    // A directory that cannot be written (EACCES) already fell back; it still does, for an
    // unprivileged victim, and leaves no live file.
    TEST_F(SecurityOutputTest, AnUnwritableDirectoryFallsBackToTheCurrentDirectory)
    {
        ASSERT_EQ(chown(m_work.c_str(), kNobody, kNobody), 0);
        // Copies nobody can reach (the build tree may lie in root's 0700 home).
        const std::string bin = m_dir.file("nobody-bin");
        fs::create_directory(bin);
        for (const std::string& file : { kSimp, kLibrary }) {
            const std::string to = bin + "/" + fs::path(file).filename().string();
            fs::copy_file(file, to);
            ASSERT_EQ(chmod(to.c_str(), 0755), 0);
        }
        ASSERT_EQ(chmod(bin.c_str(), 0755), 0);
        const std::string simp = bin + "/" + fs::path(kSimp).filename().string();
        const std::string library = bin + "/" + fs::path(kLibrary).filename().string();
        // The collector is preloaded into simp only (env sets it), not into setpriv, which runs as root.
        const std::vector<std::string> command
            = { "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/env",
                  "LD_PRELOAD=" + library, "PPE_ON=1", "PPE_OUT=" + m_protected + "/v.ppe", simp, "1000003" };
        const RunResult run
            = runProgram(command, { { "PPE_DEFAULT_DIR", "", true }, { "PPE_LAUNCHED", "", true } }, m_work);
        EXPECT_TRUE(run.exited && run.status == 0) << run.err;
        expectProfile(m_work + "/v.ppe", run);
        expectFallback(run, "Permission denied");
        EXPECT_EQ(namesIn(m_protected), std::vector<std::string> {});
    }

    // ppeout, ppe --recover and ppe-arc write through the same code: an OUTPUT named on the command
    // line may be a device (/dev/null), but not another user's FIFO, and a name ppe --recover makes
    // up (LIVE's NAME.ppe) is never a FIFO.
    TEST_F(SecurityOutputTest, ToolsNeverWriteIntoAnotherUsersFifo)
    {
        victim(m_work + "/p.ppe");
        const std::string report = m_shared + "/report.ppl";
        attack({ "mkfifo", "-m", "666", report });
        FifoReader attacker(report, kNobody);
        ASSERT_TRUE(attacker.ready());
        const RunResult formatted = runProgram({ PPEOUT, m_work + "/p.ppe", report }, {}, m_work);
        EXPECT_EQ(formatted.status, 1) << formatted.err;
        EXPECT_EQ(countOf(formatted.err, "a FIFO of another user"), 1) << formatted.err;
        EXPECT_EQ(runProgram({ PPEOUT, m_work + "/p.ppe", "/dev/null" }, {}, m_work).status, 0);
        // A killed run's live file, and the name ppe --recover makes of it, planted as a FIFO.
        const Running running = heldVictim(victimEnvironment(m_shared + "/k.ppe"), m_protected + "/gate", m_work);
        const std::string live = waitForFile(m_shared, std::regex(R"(k\.ppe\.[0-9]+\.live)"));
        ASSERT_NE(live, "");
        ASSERT_GT(running.pid, 0);
        // The live file's name shows before its header is in: the collector says it runs after that.
        ASSERT_TRUE(waitForText(running.errPath, "ppe: monitored address range")) << readFile(running.errPath);
        kill(running.pid, SIGKILL);
        waitProgram(running);
        attack({ "mkfifo", "-m", "666", m_shared + "/k.ppe" });
        FifoReader second(m_shared + "/k.ppe", kNobody);
        ASSERT_TRUE(second.ready());
        const RunResult recovered = runProgram({ PPE_LAUNCHER, "--recover", m_shared + "/" + live }, {}, m_work);
        const RunResult named
            = runProgram({ PPE_LAUNCHER, "--recover", m_shared + "/" + live, "-o", report }, {}, m_work);
        EXPECT_EQ(second.stop(), 0) << "the attacker read the recovered profile";
        EXPECT_EQ(attacker.stop(), 0) << "the attacker read a report or profile";
        EXPECT_EQ(recovered.status, 1) << recovered.err;
        EXPECT_EQ(countOf(recovered.err, "a device or FIFO is at a name ppe made up"), 1) << recovered.err;
        EXPECT_EQ(named.status, 1) << named.err;
        EXPECT_EQ(countOf(named.err, "a FIFO of another user"), 1) << named.err;
    }

    // issue 33: a preloaded shell (the program the user named) writes beside itself; the programs it
    // runs, exec'd or forked, write in its current directory, never beside their own executables.
    TEST_F(SecurityOutputTest, ChildrenWriteWhereTheFirstProcessWrites)
    {
        const std::string bin = m_dir.file("bin");
        const std::string system = m_dir.file("sysbin"); // stands for /usr/bin
        fs::create_directory(bin);
        fs::create_directory(system);
        fs::copy_file("/bin/sh", bin + "/sh");
        fs::copy_file(kSimp, system + "/simp_plain");
        fs::copy_file(PPE_FORK_CHILD, system + "/fork_child");
        for (const std::string& p : { bin + "/sh", system + "/simp_plain", system + "/fork_child" })
            ASSERT_EQ(chmod(p.c_str(), 0755), 0);
        std::vector<EnvChange> env = victimEnvironment("");
        env[2] = { "PPE_OUT", "", true };
        const std::string script
            = system + "/simp_plain 1000003; " + system + "/simp_plain 1000003; " + system + "/fork_child 1; true";
        const RunResult run = runProgram({ bin + "/sh", "-c", script }, env, m_work);
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_EQ(namesIn(system), (std::vector<std::string> { "fork_child", "simp_plain" })) << run.err;
        EXPECT_EQ(namesIn(bin), (std::vector<std::string> { "sh", "sh.ppe" })) << run.err;
        int simps = 0, forks = 0;
        for (const std::string& name : namesIn(m_work)) {
            simps += std::regex_match(name, std::regex(R"(simp_plain\.[0-9]+\.ppe)"));
            forks += std::regex_match(name, std::regex(R"(fork_child\.[0-9]+\.ppe)"));
        }
        EXPECT_EQ(simps, 2) << run.err;
        // The exec'd fork_child and its forked child (a child with work to show: one that ends at once
        // may leave no profile).
        EXPECT_EQ(forks, 2) << run.err;
    }

    // A subshell is a forked child that, under perf-ring, has no live file of its own for its first
    // 20 ms of CPU time: a program it runs is still not what the user named. It writes in the first
    // process's directory, never beside its executable nor over the first process's PPE_OUT
    // (issue 33: `( sleep 1; true )` in a preloaded script wrote /usr/bin/sleep.ppe).
    TEST_F(SecurityOutputTest, AProgramASubshellRunsWritesWhereTheFirstProcessWrites)
    {
        const std::string bin = m_dir.file("bin"); // the shell the user named writes beside itself
        const std::string system = m_dir.file("sysbin"); // stands for /usr/bin
        installShellAndProgram(bin, system);
        const std::vector<std::string> command = { bin + "/sh", "-c", "(" + system + "/simp_plain 1000003; true)" };
        std::vector<EnvChange> env = victimEnvironment("");
        env[2] = { "PPE_OUT", "", true };
        const RunResult beside = runProgram(command, env, m_work);
        ASSERT_TRUE(beside.exited && beside.status == 0) << beside.err;
        EXPECT_EQ(namesIn(system), std::vector<std::string> { "simp_plain" }) << beside.err;
        EXPECT_EQ(namesIn(bin), (std::vector<std::string> { "sh", "sh.ppe" })) << beside.err;
        const RunResult named = runProgram(command, victimEnvironment(m_work + "/top.ppe"), m_work);
        ASSERT_TRUE(named.exited && named.status == 0) << named.err;
        int simps = 0;
        for (const std::string& name : namesIn(m_work)) {
            simps += std::regex_match(name, std::regex(R"(simp_plain\.[0-9]+\.ppe)"));
            EXPECT_EQ(name.find("top.ppe.~"), std::string::npos) << name << " backs up the first process's profile\n"
                                                                 << named.err;
        }
        EXPECT_EQ(simps, 2) << beside.err << named.err;
        EXPECT_TRUE(fileExists(m_work + "/top.ppe")) << named.err;
    }

    // A background grandchild of a script, started once its parent has ended (`( prog & )`), is
    // adopted by init before the collector in it starts: its parent tells nothing, but its session
    // (the script, run here under setsid as a terminal or a batch system runs one) does. It wrote
    // beside its executable; now it writes where the first process writes.
    TEST_F(SecurityOutputTest, AnOrphanedGrandchildWritesWhereTheFirstProcessWrites)
    {
        const std::string bin = m_dir.file("bin"); // the shell the user named writes beside itself
        const std::string system = m_dir.file("sysbin"); // stands for /usr/bin
        installShellAndProgram(bin, system);
        // The job waits for `go`, which the script makes once the subshell that started the job
        // has ended (the script waited for it), then runs simp_plain; the script polls for
        // simp_plain's profile wherever it is written. Builtins only, each loop bounded.
        const std::string go = m_dir.file("go");
        const std::string adopter = m_dir.file("adopter");
        const std::string job = "i=0; while [ ! -e " + go + " ] && [ $i -lt 5000000 ]; do i=$((i + 1)); done; "
            + "read -r pid comm state parent rest < /proc/$$/stat; echo $parent > " + adopter + "; exec " + system
            + "/simp_plain 1000003";
        const std::string script = "( " + bin + "/sh -c '" + job + "' & ); : > " + go
            + "; i=0; while [ $i -lt 2000000 ]; do for f in " + m_work + "/simp_plain.*.ppe " + system
            + "/simp_plain.*ppe; do [ -e \"$f\" ] && exit 0; done; i=$((i + 1)); done; exit 3";
        std::vector<EnvChange> env = victimEnvironment("");
        env[2] = { "PPE_OUT", "", true };
        const RunResult run = runProgram({ "/usr/bin/setsid", bin + "/sh", "-c", script }, env, m_work);
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        const std::string parent = readFile(adopter);
        if (parent != "1\n")
            GTEST_SKIP() << "the job was adopted by a subreaper (pid " << parent
                         << "), not init: the collector takes such a parent for one the user started";
        EXPECT_EQ(namesIn(system), std::vector<std::string> { "simp_plain" }) << run.err;
        int simps = 0;
        for (const std::string& name : namesIn(m_work))
            simps += std::regex_match(name, std::regex(R"(simp_plain\.[0-9]+\.ppe)"));
        EXPECT_EQ(simps, 1) << run.err;
    }

    // A script run by its name under LD_PRELOAD: the kernel runs its interpreter, but the user named
    // the script, so the interpreter's profile lies beside the script and is named by it, never
    // beside the interpreter (a shell script run so as root used to leave bash.ppe in /usr/bin).
    TEST_F(SecurityOutputTest, AScriptRunByNameWritesBesideTheScript)
    {
        const std::string system = m_dir.file("sysbin"); // stands for /usr/bin
        const std::string scripts = m_dir.file("scripts");
        fs::create_directory(system);
        fs::create_directory(scripts);
        fs::copy_file("/bin/sh", system + "/sh");
        ASSERT_EQ(chmod((system + "/sh").c_str(), 0755), 0);
        const std::string script = scripts + "/run.sh";
        {
            std::ofstream out(script);
            out << "#!" << system << "/sh\ni=0\nwhile [ $i -lt 20000 ]; do i=$((i+1)); done\n";
        }
        ASSERT_EQ(chmod(script.c_str(), 0755), 0);
        std::vector<EnvChange> env = victimEnvironment("");
        env[2] = { "PPE_OUT", "", true };
        const RunResult run = runProgram({ script }, env, m_work);
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_EQ(namesIn(system), (std::vector<std::string> { "sh" })) << run.err;
        EXPECT_EQ(namesIn(scripts), (std::vector<std::string> { "run.sh", "run.sh.ppe" })) << run.err;
        expectProfile(scripts + "/run.sh.ppe", run);
    }

    // The first process's own forked child is not what the user named either: it writes in the
    // first process's current directory, not beside the executable as NAME.PID.ppe.
    TEST_F(SecurityOutputTest, AForkedChildOfTheFirstProcessWritesInItsDirectory)
    {
        const std::string system = m_dir.file("sysbin");
        fs::create_directory(system);
        fs::copy_file(PPE_FORK_CHILD, system + "/fork_child");
        std::vector<EnvChange> env = victimEnvironment("");
        env[2] = { "PPE_OUT", "", true };
        const RunResult run = runProgram({ system + "/fork_child", "1" }, env, m_work);
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        EXPECT_EQ(namesIn(system), (std::vector<std::string> { "fork_child", "fork_child.ppe" })) << run.err;
        const std::vector<std::string> work = namesIn(m_work);
        ASSERT_EQ(work.size(), 1u) << run.err;
        EXPECT_TRUE(std::regex_match(work[0], std::regex(R"(fork_child\.[0-9]+\.ppe)"))) << work[0];
    }

} // namespace
} // namespace ppe::testing
