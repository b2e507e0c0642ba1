// Issue 33: whatever a program can observe — its exit status or the signal that ended it, what it
// prints, the result and errno of its calls, its signal dispositions and flags, its descriptors,
// its namespaces — is the same with and without PPE_ON. Each program under untouched/ prints what
// it observes (never a time); it runs bare, then under the collector in every way a user starts it
// (linked with libppe.so, linked with libppe.a, preloaded, by `ppe`) and with every mechanism, and
// the two runs must agree. A profiled run must also leave a complete profile.
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <vector>

namespace ppe::testing {
namespace {

    enum class Start { Linked, Static, Preload, Launcher, LinkedOff, StaticOff };

    const char* startName(Start start)
    {
        switch (start) {
        case Start::Linked:
            return "linked";
        case Start::Static:
            return "static";
        case Start::Preload:
            return "preload";
        case Start::Launcher:
            return "launcher";
        case Start::LinkedOff:
            return "linked_off";
        case Start::StaticOff:
            return "static_off";
        }
        return "?";
    }

    void PrintTo(Start start, std::ostream* os) { *os << startName(start); }

    bool profiles(Start start) { return start != Start::LinkedOff && start != Start::StaticOff; }

    // PPE_TIMER's value (the launcher's --timer) and the mechanism the collector then names.
    struct Timer {
        const char* option;
        const char* mechanism;
    };
    const Timer kNoTimer { "none", "" };

    void PrintTo(const Timer& timer, std::ostream* os) { *os << timer.option; }

    enum CaseFlags : unsigned {
        // Ends with _exit from a signal handler, or in abort() after the program's SIGABRT handler
        // returned: libppe.a intercepts neither (user guide §5), so a static link writes no profile
        // there.
        kExitsInHandler = 1,
        // Needs something of the machine (user namespaces): a bare run that fails skips the case.
        kBareMustSucceed = 2,
        // Reports the time under the collector against the bare run (not asserted: bench/ does).
        kTimed = 4,
        // Waits in a call that PPE_TIMER=posix's signals interrupt in real-time mode, by design (user
        // guide §4): nanosleep; or a read whose restart a tick decides when it lands with the program's
        // own signal.
        kWaitsUnderPosix = 8,
        // Enters another mount namespace (setns): from inside a chroot that leaves the chroot, and the
        // run's folder with it (the profile then goes to the namespace's current directory).
        kLeavesChroot = 16,
    };

    struct Case {
        const char* name; // the test's name
        const char* program; // under untouched/
        std::vector<std::string> args; // "FILE": a file in the run's own folder
        unsigned flags = 0;
        const char* endReason = nullptr; // the profile's end-reason, where exit and _exit would both do
    };

    void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

    const std::vector<Case>& cases()
    {
        static const std::vector<Case> all {
            { "sa_restart", "sa_restart", { "restart" } },
            { "no_sa_restart", "sa_restart", { "interrupt" }, kWaitsUnderPosix },
            { "ignored_hup", "ignored_hup", { "main" }, kWaitsUnderPosix },
            { "ignored_hup_inherited", "ignored_hup", { "inherited" }, kWaitsUnderPosix },
            { "sa_mask", "handler_flags", { "mask" } },
            { "sa_mask_term", "handler_flags", { "term-mask" } },
            { "sa_nodefer", "handler_flags", { "nodefer" } },
            { "sa_defer", "handler_flags", { "defer" } },
            { "sa_resethand", "handler_flags", { "resethand" } },
            { "sa_siginfo", "handler_flags", { "siginfo" } },
            { "sa_resethand_siginfo", "handler_flags", { "resethand-siginfo" } },
            { "abort_after_handler_returns", "handler_flags", { "abort-returns" }, kExitsInHandler },
            { "sigaction_from_threads", "sigaction_storm", {} },
            { "early_and_late_handlers", "early_handler", {} },
            { "sigwait_blocked_ending_signals", "blocked_wait", { "sigwait" } },
            { "signalfd_blocked_ending_signals", "blocked_wait", { "signalfd" } },
            { "altstack_handler", "altstack", { "handler", "malloc" }, kExitsInHandler },
            { "altstack_handler_guarded", "altstack", { "handler", "guarded" }, kExitsInHandler },
            { "altstack_default", "altstack", { "default", "malloc" } },
            { "altstack_default_guarded", "altstack", { "default", "guarded" } },
            { "fd512_in_child", "fd512", { "FILE" } },
            { "close_range_then_fork", "fd_range", {} },
            { "close_all_then_reuse_512", "fd_reuse", { "FILE" } },
            { "child_closes_its_stderr_pipe", "stderr_eof", {}, kWaitsUnderPosix },
            { "lowest_free_descriptor", "lowest_fd", { "lowest" } },
            { "close_loop_keeps_new_descriptor", "lowest_fd", { "close-loop" } },
            { "nofile_soft", "low_nofile", { "soft" } },
            { "nofile_hard", "low_nofile", { "hard" } },
            { "nofile_soft_exec", "low_nofile", { "soft-exec" } },
            { "nofile_hard_exec", "low_nofile", { "hard-exec" } },
            { "nofile_raised_after_start", "low_nofile", { "raise-exec" } },
            { "unshare_user", "userns", { "main" }, kBareMustSucceed },
            { "unshare_user_child", "userns", { "child" }, kBareMustSucceed },
            { "setns_user", "userns", { "setns" }, kBareMustSucceed },
            { "setns_mount", "userns", { "setns-mnt" }, kBareMustSucceed | kLeavesChroot },
            { "clone_newuser", "userns", { "clone" }, kBareMustSucceed },
            { "vfork_children_exit", "vfork_exit", {}, 0, "exit" },
            { "fork_storm", "fork_storm", {}, kTimed },
            { "dispositions", "dispositions", { "all" } },
            { "dispositions_inherited", "dispositions", { "inherited" } },
            { "environment", "environment", {} },
            { "errno_across_creation_and_fork", "errno_kept", {} },
        };
        return all;
    }

    std::string programPath(const Case& c, Start start)
    {
        const char* kind = start == Start::Linked || start == Start::LinkedOff ? "linked"
            : start == Start::Static || start == Start::StaticOff              ? "static"
                                                                               : "plain";
        return std::string(PPE_UNTOUCHED_PROGRAMS) + "/" + kind + "/" + c.program;
    }

    std::vector<std::string> arguments(const Case& c, const TempDir& dir)
    {
        std::vector<std::string> args;
        for (const std::string& a : c.args)
            args.push_back(a == "FILE" ? dir.file("program-file.txt") : a);
        return args;
    }

    // Nothing of the caller's environment may start or steer a collector in the bare run.
    std::vector<EnvChange> cleanEnvironment()
    {
        std::vector<EnvChange> env;
        for (const char* name : { "PPE_ON", "PPE_OUT", "PPE_TIMER", "PPE_MODE", "PPE_CHECKPOINT", "PPE_SNAPSHOT_SIGNAL",
                 "PPE_OBJECT", "PPE_LAUNCHED", "PPE_CHILDREN", "LD_PRELOAD" })
            env.push_back({ name, "", true });
        return env;
    }

    void setVariable(std::vector<EnvChange>& env, const std::string& name, const std::string& value)
    {
        for (EnvChange& e : env) {
            if (e.name == name)
                e = { name, value, false };
        }
    }

    struct TimedRun {
        RunResult result;
        double seconds = 0;
    };

    TimedRun runProfiled(const Case& c, Start start, const Timer& timer, const TempDir& dir, const std::string& out)
    {
        std::vector<EnvChange> env = cleanEnvironment();
        std::vector<std::string> argv { programPath(c, start) };
        if (start == Start::Launcher) {
            argv = { PPE_LAUNCHER, "--timer", timer.option, "-o", out, programPath(c, start) };
        } else if (profiles(start)) {
            setVariable(env, "PPE_ON", "1");
            setVariable(env, "PPE_OUT", out);
            setVariable(env, "PPE_TIMER", timer.option);
            if (start == Start::Preload)
                setVariable(env, "LD_PRELOAD", PPE_LIBRARY);
        }
        for (const std::string& a : arguments(c, dir))
            argv.push_back(a);
        const auto begin = std::chrono::steady_clock::now();
        TimedRun r { runProgram(argv, env, dir.path()) };
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        return r;
    }

    TimedRun runBare(const Case& c, const TempDir& dir)
    {
        std::vector<std::string> argv { programPath(c, Start::Preload) };
        for (const std::string& a : arguments(c, dir))
            argv.push_back(a);
        const auto begin = std::chrono::steady_clock::now();
        TimedRun r { runProgram(argv, cleanEnvironment(), dir.path()) };
        r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
        return r;
    }

    std::string ending(const RunResult& r)
    {
        if (r.exited)
            return "exit status " + std::to_string(r.status);
        return "killed by signal " + std::to_string(r.signal) + (r.coreDumped ? " (core dumped)" : "");
    }

    // The mechanism the collector's first line names ("ppe: monitored address range is ..., perf-ring,
    // 1-byte bins"); "" when there is no such line.
    std::string namedMechanism(const std::string& err)
    {
        const std::string marker = "(hex), ";
        const size_t at = err.find(marker);
        if (at == std::string::npos)
            return "";
        const size_t from = at + marker.size();
        return err.substr(from, err.find(',', from) - from);
    }

    // The collector stepped aside in a process, saying so ("ppe: disabled: no descriptor for
    // perf-task-clock's events ..."): that process writes no profile.
    bool steppedAside(const std::string& err) { return err.find("ppe: disabled: ") != std::string::npos; }

    // True inside a chroot (of a folder, not of a mount): no mount is seen at this process's root.
    // The kernel leaves out of /proc/self/mountinfo the mounts whose mount point is outside the root
    // (init's /proc/1/root may not be readable, even by root, in a container).
    bool inChroot()
    {
        std::istringstream lines(readFile("/proc/self/mountinfo"));
        bool any = false;
        for (std::string line; std::getline(lines, line);) {
            any = true;
            std::istringstream fields(line);
            std::string id, parent, device, root, mountPoint;
            if (fields >> id >> parent >> device >> root >> mountPoint && mountPoint == "/")
                return false;
        }
        return any;
    }

    // Why this machine does not run `timer`; "" when it does (then the run itself is checked too).
    std::string refusal(const Timer& timer)
    {
        if (std::string(timer.option) == "ring" && !perfRingsAvailable())
            return "perf events bound to a CPU, or their ring buffers, are refused here";
        if (std::string(timer.option) == "perf" && !perfEventsAvailable())
            return "perf_event_open is refused here";
        return "";
    }

    std::string label(const Case& c, Start start, const Timer& timer)
    {
        std::ostringstream s;
        s << "case " << c.name << " (" << c.program;
        for (const std::string& a : c.args)
            s << " " << a;
        s << "), started " << startName(start);
        if (profiles(start))
            s << ", PPE_TIMER=" << timer.option;
        return s.str();
    }

    void expectCompleteProfile(const Case& c, const std::string& path, const RunResult& bare, const std::string& what,
        const RunResult& profiled)
    {
        auto profile = readProfile(path);
        ASSERT_TRUE(profile) << what << ": no complete profile: " << profile.error().str() << "\n" << profiled.err;
        EXPECT_EQ(profile->status, ProfileStatus::Complete) << what;
        if (!bare.exited)
            EXPECT_EQ(profile->endReason, "signal " + std::to_string(bare.signal)) << what;
        else if (c.endReason)
            EXPECT_EQ(profile->endReason, c.endReason) << what;
        else
            EXPECT_TRUE(profile->endReason == "exit" || profile->endReason == "_exit")
                << what << ": " << profile->endReason;
    }

    class UntouchedTest : public ::testing::TestWithParam<std::tuple<Case, Start, Timer>> { };

    TEST_P(UntouchedTest, ObservesWhatItObservesBare)
    {
        const auto& [c, start, timer] = GetParam();
        const std::string what = label(c, start, timer);
        if (const std::string why = profiles(start) ? refusal(timer) : ""; !why.empty())
            GTEST_SKIP() << what << ": " << why;
        if ((c.flags & kLeavesChroot) && inChroot())
            GTEST_SKIP() << what << ": in a chroot, entering a mount namespace leaves it, and the run's folder";
        if ((c.flags & kWaitsUnderPosix) && std::string(timer.option) == "posix")
            GTEST_SKIP() << what << ": the POSIX timer interrupts waits in real-time mode, as the user guide says (§4)";
        TempDir bareDir, dir;
        const TimedRun bare = runBare(c, bareDir);
        if ((c.flags & kBareMustSucceed) && !(bare.result.exited && bare.result.status == 0))
            GTEST_SKIP() << what << ": the bare run fails here (" << ending(bare.result) << "):\n"
                         << bare.result.out << bare.result.err;
        const std::string out = dir.file("run.ppe");
        const TimedRun profiled = runProfiled(c, start, timer, dir, out);
        const RunResult& p = profiled.result;
        const std::string named = namedMechanism(p.err);
        if (profiles(start) && !named.empty() && named != timer.mechanism)
            GTEST_SKIP() << what << ": the collector sampled by " << named << " instead:\n" << p.err;
        EXPECT_EQ(ending(p), ending(bare.result)) << what << "\n--- stderr under the collector:\n" << p.err;
        EXPECT_EQ(p.out, bare.result.out) << what << "\n--- stderr under the collector:\n" << p.err;
        if (c.flags & kTimed) {
            const double ratio = profiled.seconds / bare.seconds;
            std::printf(
                "%s: %.2f s bare, %.2f s this way (%.2fx)\n", what.c_str(), bare.seconds, profiled.seconds, ratio);
            RecordProperty("time_ratio", std::to_string(ratio));
        }
        if (!profiles(start)) {
            EXPECT_FALSE(fileExists(out)) << what << ": a profile without PPE_ON";
            EXPECT_EQ(p.err, bare.result.err) << what << ": the collector spoke without PPE_ON";
        } else if (!(start == Start::Static && (c.flags & kExitsInHandler)) && !steppedAside(p.err)) {
            expectCompleteProfile(c, out, bare.result, what, p);
        }
    }

    std::string testName(const ::testing::TestParamInfo<UntouchedTest::ParamType>& info)
    {
        const auto& [c, start, timer] = info.param;
        std::string name = std::string(c.name) + "_" + startName(start);
        if (profiles(start))
            name += std::string("_") + timer.option;
        return name;
    }

    INSTANTIATE_TEST_SUITE_P(Profiled, UntouchedTest,
        ::testing::Combine(::testing::ValuesIn(cases()),
            ::testing::Values(Start::Linked, Start::Static, Start::Preload, Start::Launcher),
            ::testing::Values(Timer { "ring", "perf-ring" }, Timer { "perf", "perf-task-clock" },
                Timer { "itimer", "itimer-prof" }, Timer { "posix", "posix-timer" })),
        testName);

    // The collector linked in but not asked for: nothing at all.
    INSTANTIATE_TEST_SUITE_P(NotAsked, UntouchedTest,
        ::testing::Combine(::testing::ValuesIn(cases()), ::testing::Values(Start::LinkedOff, Start::StaticOff),
            ::testing::Values(kNoTimer)),
        testName);

} // namespace
} // namespace ppe::testing
