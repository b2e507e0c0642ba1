// The collector thread (service_thread.h): jobs run on it, one at a time, with every signal
// blocked; a late job skips the runs it missed instead of running them back to back; a signal
// handler can ask for a job at once; an ending runs on it ahead of any job; it can be parked (gone
// from the process) around a call that needs a single thread, and resumed; its descriptor table
// is its own. Each test runs in a process of its own
// (ctest runs every case alone), so each starts the thread itself.
#include "service_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {
namespace {

    pid_t currentTid() { return pid_t(syscall(SYS_gettid)); }

    // The collector thread is one per process, and stopping its jobs is for good.
#define SKIP_UNLESS_ALONE()                                                                                            \
    if (serviceThreadId() != 0)                                                                                        \
    GTEST_SKIP() << "an earlier case of this process started the collector thread: run each case alone (ctest does)"

    // Waits up to 5 s for `done`.
    template <typename Predicate> bool eventually(Predicate done)
    {
        for (int i = 0; i < 500 && !done(); ++i)
            usleep(10'000);
        return done();
    }

    struct Seen {
        std::atomic<int> runs { 0 };
        std::atomic<pid_t> tid { 0 };
        std::atomic<bool> onServiceThread { false };
        std::atomic<bool> everySignalBlocked { false };
        std::atomic<int> inFlight { 0 };
        std::atomic<int> mostInFlight { 0 };
    };
    Seen g_seen;

    bool blocksEverySignal()
    {
        sigset_t mask;
        pthread_sigmask(SIG_SETMASK, nullptr, &mask);
        for (int signal = 1; signal < NSIG; ++signal) {
            if (signal != SIGKILL && signal != SIGSTOP && signal != 32 && signal != 33 && !sigismember(&mask, signal))
                return false; // (32 and 33 are glibc's own, never in a user mask)
        }
        return true;
    }

    void observe(uint64_t)
    {
        g_seen.tid = currentTid();
        g_seen.onServiceThread = onServiceThread();
        g_seen.everySignalBlocked = blocksEverySignal();
        ++g_seen.runs;
    }

    TEST(ServiceThread, JobsRunOnItsOwnThreadWithEverySignalBlocked)
    {
        SKIP_UNLESS_ALONE();
        ASSERT_GE(addServiceJob(observe, 20'000'000), 0);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        ASSERT_TRUE(eventually([] { return g_seen.runs >= 3; }));
        EXPECT_EQ(g_seen.tid, serviceThreadId());
        EXPECT_NE(g_seen.tid, currentTid());
        EXPECT_TRUE(g_seen.onServiceThread);
        EXPECT_FALSE(onServiceThread());
        EXPECT_TRUE(g_seen.everySignalBlocked);
        EXPECT_FALSE(blocksEverySignal()) << "the starter's mask is restored";
        stopServiceJobs();
        usleep(50'000);
        const int runs = g_seen.runs;
        usleep(100'000);
        EXPECT_EQ(g_seen.runs, runs) << "no job starts once stopped";
    }

    // CPU seconds of thread `tid` of this process.
    double threadCpuSeconds(pid_t tid)
    {
        clockid_t clock = clockid_t((~tid << 3) | 6); // CPUCLOCK_SCHED of a thread (as pthread_getcpuclockid)
        timespec t {};
        clock_gettime(clock, &t);
        return double(t.tv_sec) + double(t.tv_nsec) * 1e-9;
    }

    void nothing(uint64_t) { }

    // Issue 35: once its jobs are stopped (the process is writing its profile, and may fsync for
    // long on a slow file system), the thread sleeps. It used to wait again and again for a due time
    // already past: a spinning core for the whole write.
    TEST(ServiceThread, StoppedItSleepsInsteadOfSpinning)
    {
        SKIP_UNLESS_ALONE();
        ASSERT_GE(addServiceJob(nothing, 1'000'000), 0);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        usleep(20'000);
        stopServiceJobs();
        usleep(10'000); // the jobs' due times are now past
        const pid_t tid = serviceThreadId();
        const double before = threadCpuSeconds(tid);
        usleep(300'000);
        const double used = threadCpuSeconds(tid) - before;
        EXPECT_LT(used, 0.03) << "the collector thread used " << used << " s of CPU in 0.3 s with its jobs stopped";
    }

    void slow(uint64_t)
    {
        const int now = ++g_seen.inFlight;
        g_seen.mostInFlight = std::max(g_seen.mostInFlight.load(), now);
        usleep(130'000); // more than three periods
        --g_seen.inFlight;
        ++g_seen.runs;
    }

    TEST(ServiceThread, ALateJobSkipsTheRunsItMissedAndNeverOverlaps)
    {
        SKIP_UNLESS_ALONE();
        const int id = addServiceJob(slow, 40'000'000);
        ASSERT_GE(id, 0);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        ASSERT_TRUE(eventually([] { return g_seen.runs >= 4; }));
        EXPECT_EQ(g_seen.mostInFlight, 1);
        EXPECT_GE(skippedServiceRuns(id), 6u) << "each run of 130 ms misses at least two of 40 ms";
    }

    int g_requested = -1;
    void onSignal(int) { requestServiceJob(g_requested); }

    TEST(ServiceThread, ASignalHandlerCanAskForAJobAtOnce)
    {
        SKIP_UNLESS_ALONE();
        g_requested = addServiceJob(observe, 3600'000'000'000);
        ASSERT_GE(g_requested, 0);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        usleep(50'000);
        EXPECT_EQ(g_seen.runs, 0) << "due in an hour";
        struct sigaction action { };
        action.sa_handler = onSignal;
        sigaction(SIGUSR1, &action, nullptr);
        raise(SIGUSR1);
        EXPECT_TRUE(eventually([] { return g_seen.runs == 1; }));
        EXPECT_EQ(g_seen.tid, serviceThreadId());
    }

    std::atomic<pid_t> g_endingTid { 0 };
    void ending() { g_endingTid = currentTid(); }

    TEST(ServiceThread, AnEndingRunsOnIt)
    {
        SKIP_UNLESS_ALONE();
        EXPECT_FALSE(runEndingOnServiceThread(ending)) << "no collector thread yet: the caller's to run";
        ASSERT_GE(addServiceJob(slow, 3600'000'000'000), 0);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        ASSERT_TRUE(runEndingOnServiceThread(ending));
        ASSERT_TRUE(eventually([] { return g_endingTid != 0; }));
        EXPECT_EQ(g_endingTid, serviceThreadId());
    }

    int taskCount()
    {
        DIR* tasks = opendir("/proc/self/task");
        int count = 0;
        while (tasks && readdir(tasks))
            ++count;
        if (tasks)
            closedir(tasks);
        return count - 2; // . and ..
    }

    TEST(ServiceThread, ParkedItLeavesTheProcessAndComesBack)
    {
        SKIP_UNLESS_ALONE();
        ASSERT_EQ(taskCount(), 1) << "this test needs a process of one thread";
        g_requested = addServiceJob(observe, 3600'000'000'000);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        ASSERT_EQ(taskCount(), 2);
        parkServiceThread();
        EXPECT_EQ(taskCount(), 1) << "gone when parkServiceThread returns";
        EXPECT_EQ(serviceThreadId(), 0);
        EXPECT_FALSE(runEndingOnServiceThread(ending)) << "parked: the caller's to run";
        // What the kernel refuses to a process of several threads works now (where user namespaces
        // are allowed at all).
        const int result = unshare(CLONE_NEWUSER);
        EXPECT_TRUE(result == 0 || errno != EINVAL) << "unshare(CLONE_NEWUSER): EINVAL, more than one thread";
        resumeServiceThread();
        EXPECT_NE(serviceThreadId(), 0);
        EXPECT_EQ(taskCount(), 2);
        requestServiceJob(g_requested);
        EXPECT_TRUE(eventually([] { return g_seen.runs == 1; })) << "its jobs run again";
        EXPECT_EQ(g_seen.tid, serviceThreadId());
    }

    std::atomic<int> g_heldByJob { -1 };

    void holdAFile(uint64_t)
    {
        if (g_heldByJob.load() < 0)
            g_heldByJob = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    }

    // Its descriptors are its own (issue 33): a file it holds open never takes the number the
    // program's next open() gets, and a copy of the program's descriptors never holds a pipe open
    // after the program closed it.
    TEST(ServiceThread, ItsDescriptorsAreNotTheProgramsToSee)
    {
        SKIP_UNLESS_ALONE();
        int pipeFds[2];
        ASSERT_EQ(pipe2(pipeFds, O_NONBLOCK | O_CLOEXEC), 0);
        const int lowest = open("/dev/null", O_RDONLY | O_CLOEXEC);
        ASSERT_GE(lowest, 0);
        close(lowest);
        ASSERT_GE(addServiceJob(holdAFile, 1'000'000), 0);
        const char* why = nullptr;
        ASSERT_TRUE(startServiceThread(&why)) << why;
        ASSERT_TRUE(eventually([] { return g_heldByJob.load() >= 0; }));
        const int next = open("/dev/null", O_RDONLY | O_CLOEXEC);
        EXPECT_EQ(next, lowest) << "the collector thread's file took the program's next number";
        close(next);
        close(pipeFds[1]);
        char byte;
        EXPECT_EQ(read(pipeFds[0], &byte, 1), 0)
            << "end-of-file: nobody else holds the write end (" << std::strerror(errno) << ")";
        close(pipeFds[0]);
    }

    TEST(ServiceThread, TheJobTableIsBounded)
    {
        int added = 0;
        while (added <= kMaxServiceJobs && addServiceJob(observe, 3600'000'000'000) >= 0)
            ++added;
        EXPECT_LE(added, kMaxServiceJobs);
        EXPECT_EQ(addServiceJob(observe, 1'000'000), -1);
        EXPECT_EQ(addServiceJob(observe, 0), -1) << "a job needs a period";
    }

} // namespace
} // namespace ppe
