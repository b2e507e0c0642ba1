#include "service_thread.h"

#include "perf_events.h"
#include "period_dither.h"
#include "task_list.h"

#include <atomic>
#include <climits>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr size_t kStackBytes = 1 << 20; // touched only as deep as a checkpoint goes
    constexpr uint64_t kLivenessNs = 500'000'000; // how often it looks for a program thread
    constexpr int kMaxTasksChecked = 1024;
    constexpr uint64_t kParkWaitNs = 2'000'000'000; // for a job under way to end (a checkpoint: ms)

    struct Job {
        ServiceJobFn run = nullptr;
        uint64_t periodNs = 0;
        std::atomic<uint64_t> dueNs { 0 };
        std::atomic<uint64_t> skipped { 0 };
        std::atomic<bool> requested { false };
    };

    struct Service {
        Job jobs[kMaxServiceJobs];
        std::atomic<int> jobCount { 0 };
        std::atomic<uint32_t> wake { 0 }; // futex word: changed to wake the thread
        std::atomic<bool> stopped { false };
        std::atomic<bool> busy { false }; // a job is running
        std::atomic<int> accepted { 0 }; // the one signal it takes (0: none), see acceptOnServiceThread
        int unblocked = 0; // the signal its mask lets through now
        std::atomic<pid_t> tid { 0 };
        std::atomic<pid_t> pid { 0 }; // the process it runs in (a vfork child shares this memory)
        std::atomic<bool> started { false };
        std::atomic<bool> parking { false }; // asked to leave the process (parkServiceThread)
        std::atomic<bool> startWhenResumed { false }; // startServiceThread was called while parked
        std::atomic<void (*)()> ending { nullptr }; // runEndingOnServiceThread's, ahead of any job
        void (*startedHook)(bool ownTable) = nullptr; // setServiceThreadHooks
        void (*leavingHook)() = nullptr;
        char* stack = nullptr; // kStackBytes with a guard page at the bottom
    };

    // parkServiceThread's nesting: program threads may call unshare/setns at the same time.
    struct Parking {
        pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
        int depth = 0;
        bool stoppedOne = false;
    };

    Service g_service;
    Parking g_parking;

    uint64_t monotonicNs()
    {
        timespec t {};
        clock_gettime(CLOCK_MONOTONIC, &t);
        return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_nsec);
    }

    void wakeThread()
    {
        g_service.wake.fetch_add(1, std::memory_order_release);
        syscall(SYS_futex, &g_service.wake, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
    }

    // Sleeps until CLOCK_MONOTONIC `deadlineNs` or a wake-up, whichever comes first.
    void sleepUntil(uint64_t deadlineNs, uint32_t seen)
    {
        timespec deadline { time_t(deadlineNs / 1'000'000'000), long(deadlineNs % 1'000'000'000) };
        syscall(
            SYS_futex, &g_service.wake, FUTEX_WAIT_BITSET_PRIVATE, seen, &deadline, nullptr, FUTEX_BITSET_MATCH_ANY);
    }

    // The next due time after a run that was due at `due` and ended at `now`: missed runs skipped.
    uint64_t nextDue(Job& job, uint64_t due, uint64_t now)
    {
        const uint64_t next = due + job.periodNs;
        if (next > now)
            return next;
        const uint64_t late = now - due;
        job.skipped.fetch_add(late / job.periodNs, std::memory_order_relaxed);
        return now + job.periodNs - late % job.periodNs;
    }

    void runIfDue(Job& job)
    {
        const uint64_t now = monotonicNs();
        const uint64_t due = job.dueNs.load(std::memory_order_relaxed);
        const bool asked = job.requested.exchange(false, std::memory_order_acq_rel);
        if (!asked && now < due)
            return;
        // Sequentially consistent: "busy, then stopped?" here against "stopped, then busy?" in
        // waitForServiceJobs, so that one of the two always sees the other.
        g_service.busy.store(true, std::memory_order_seq_cst);
        if (!g_service.stopped.load(std::memory_order_seq_cst))
            job.run(now);
        g_service.busy.store(false, std::memory_order_release);
        if (now >= due)
            job.dueNs.store(nextDue(job, due, monotonicNs()), std::memory_order_relaxed);
    }

    uint64_t earliestDue(uint64_t limit)
    {
        const int count = g_service.jobCount.load(std::memory_order_acquire);
        for (int i = 0; i < count; ++i) {
            const uint64_t due = g_service.jobs[i].dueNs.load(std::memory_order_relaxed);
            limit = due < limit ? due : limit;
        }
        return limit;
    }

    bool isAlive(pid_t tid)
    {
        const char state = threadState(tid);
        return state && state != 'Z' && state != 'X';
    }

    // True while a thread of the program lives. The leader is asked first: while main runs, one read.
    bool programThreadsRemain()
    {
        if (isAlive(getpid()))
            return true;
        pid_t tids[kMaxTasksChecked];
        const int count = listThreads(tids, kMaxTasksChecked);
        if (count < 0 || count == kMaxTasksChecked)
            return true; // cannot tell, or more threads than listed: some live
        for (int i = 0; i < count; ++i) {
            if (tids[i] != g_service.tid.load() && isAlive(tids[i]))
                return true;
        }
        return false;
    }

    // Its mask follows acceptOnServiceThread: every signal blocked but that one.
    void followAcceptedSignal()
    {
        const int wanted = g_service.accepted.load(std::memory_order_acquire);
        if (wanted == g_service.unblocked)
            return;
        sigset_t set;
        sigfillset(&set);
        if (wanted)
            sigdelset(&set, wanted);
        pthread_sigmask(SIG_SETMASK, &set, nullptr);
        g_service.unblocked = wanted;
    }

    bool runEnding()
    {
        void (*ending)() = g_service.ending.exchange(nullptr, std::memory_order_acq_rel);
        if (ending)
            ending();
        return ending != nullptr;
    }

    // The descriptor an entry of /proc/self/fd names; -1 for "." and "..".
    int descriptorNumber(const char* name)
    {
        if (*name < '0' || *name > '9')
            return -1;
        int fd = 0;
        for (; *name >= '0' && *name <= '9' && fd < (1 << 24); ++name)
            fd = fd * 10 + (*name - '0');
        return *name ? -1 : fd;
    }

    std::atomic<bool> g_ownDescriptors { false }; // the running collector thread has its own table

    // The collector thread's own descriptor table (issue 33): what it opens while the program runs
    // (the blocked scan's and the thread list's /proc files, checkpoints, the profile) never takes a
    // number the program's next open() would have got. Of the copy it keeps only standard error and
    // its perf events: a copy of any other descriptor would hold the program's pipes and sockets
    // open after the program closed them (a reader waiting for end-of-file would wait for the
    // process). Without /proc only the numbers below 512 (perf-ring's handed events among them are
    // kept: ring_periods.h).
    void takeOwnDescriptorTable()
    {
        g_ownDescriptors.store(false, std::memory_order_relaxed);
        if (syscall(SYS_unshare, CLONE_FILES) != 0)
            return; // shared as before: the transient descriptors are the program's to see
        g_ownDescriptors.store(true, std::memory_order_relaxed);
        const int listing = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (listing < 0) {
            for (int fd = 0; fd < 512; ++fd)
                if (fd != STDERR_FILENO && !ownsPerfEvent(fd))
                    close(fd);
            return;
        }
        alignas(8) char buffer[4096];
        for (long n; (n = syscall(SYS_getdents64, listing, buffer, sizeof(buffer))) > 0;) {
            for (long at = 0; at < n;) {
                const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
                at += entry->d_reclen;
                const int fd = descriptorNumber(entry->d_name);
                if (fd >= 0 && fd != listing && fd != STDERR_FILENO && !ownsPerfEvent(fd))
                    close(fd);
            }
        }
        close(listing);
    }

    void* serviceMain(void*)
    {
        prctl(PR_SET_NAME, "ppe-collector", 0, 0, 0);
        takeOwnDescriptorTable();
        g_service.unblocked = 0;
        followAcceptedSignal();
        g_service.tid.store(pid_t(syscall(SYS_gettid)), std::memory_order_release);
        wakeThread(); // the starter waits for the tid
        uint64_t nextLivenessCheck = monotonicNs() + kLivenessNs;
        for (;;) {
            followAcceptedSignal();
            const uint32_t seen = g_service.wake.load(std::memory_order_acquire);
            if (runEnding())
                continue;
            if (g_service.parking.load(std::memory_order_seq_cst))
                break;
            const int count = g_service.jobCount.load(std::memory_order_acquire);
            for (int i = 0; i < count && !g_service.stopped.load(std::memory_order_acquire); ++i)
                runIfDue(g_service.jobs[i]);
            const uint64_t now = monotonicNs();
            if (now >= nextLivenessCheck) {
                // glibc's last thread calls exit(0); with this thread alive, no program thread is last.
                if (!programThreadsRemain())
                    exit(0);
                nextLivenessCheck = now + kLivenessNs;
            }
            // Stopped, no job runs again and their due times stay in the past: only the liveness
            // check, an ending or a park wakes it (issue 35: it spun through the profile's fsync).
            const bool stopped = g_service.stopped.load(std::memory_order_acquire);
            sleepUntil(stopped ? nextLivenessCheck : earliestDue(nextLivenessCheck), seen);
        }
        runEnding(); // asked for while it was being parked
        if (g_service.leavingHook)
            g_service.leavingHook();
        return nullptr;
    }

    bool mapStack()
    {
        if (g_service.stack)
            return true; // a forked child reuses its copy of the parent's
        void* memory
            = mmap(nullptr, kStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
        if (memory == MAP_FAILED)
            return false;
        const size_t guard = size_t(sysconf(_SC_PAGESIZE));
        mprotect(memory, guard, PROT_NONE);
        g_service.stack = static_cast<char*>(memory);
        return true;
    }

    // Creates the thread with every signal blocked: it inherits the creator's mask, which is
    // blocked around pthread_create and then restored.
    bool createThread()
    {
        const size_t guard = size_t(sysconf(_SC_PAGESIZE));
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstack(&attr, g_service.stack + guard, kStackBytes - guard);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        sigset_t all;
        sigset_t previous;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &previous);
        pthread_t thread;
        markCollectorCreation(true); // its period does not matter (period_dither.h)
        const int error = pthread_create(&thread, &attr, serviceMain, nullptr);
        markCollectorCreation(false);
        pthread_sigmask(SIG_SETMASK, &previous, nullptr);
        pthread_attr_destroy(&attr);
        if (error == 0)
            separatePerfContext(); // the sampled events stay with the program's thread
        return error == 0;
    }

    void waitForTid()
    {
        for (uint32_t seen = g_service.wake.load(); !g_service.tid.load(std::memory_order_acquire);
             seen = g_service.wake.load()) {
            const timespec slice { 0, 10'000'000 };
            syscall(SYS_futex, &g_service.wake, FUTEX_WAIT_PRIVATE, seen, &slice, nullptr, 0);
        }
    }

    bool available()
    {
        return g_service.started.load(std::memory_order_acquire) && g_service.tid.load(std::memory_order_acquire)
            && !g_service.parking.load(std::memory_order_seq_cst);
    }

    // Asks the thread to leave and waits until the kernel has let it go (a thread group of one, the
    // file system information no longer shared): true when it is gone.
    bool stopThread()
    {
        if (!available() || g_service.pid.load(std::memory_order_relaxed) != getpid())
            return false; // none, or the parent's seen from a vfork child: not this process's to stop
        const pid_t tid = g_service.tid.load(std::memory_order_acquire);
        g_service.parking.store(true, std::memory_order_seq_cst);
        wakeThread();
        const uint64_t deadline = monotonicNs() + kParkWaitNs;
        while (threadState(tid) && monotonicNs() < deadline) {
            const timespec slice { 0, 100'000 };
            nanosleep(&slice, nullptr);
        }
        if (threadState(tid)) {
            g_service.parking.store(false, std::memory_order_seq_cst); // still in a job: let it be
            return false;
        }
        g_service.tid.store(0, std::memory_order_release);
        g_service.started.store(false, std::memory_order_release);
        return true;
    }

} // namespace

int addServiceJob(ServiceJobFn run, uint64_t periodNs)
{
    const int id = g_service.jobCount.load(std::memory_order_relaxed);
    if (id == kMaxServiceJobs || !periodNs)
        return -1;
    Job& job = g_service.jobs[id];
    job.run = run;
    job.periodNs = periodNs;
    job.dueNs.store(monotonicNs() + periodNs, std::memory_order_relaxed);
    g_service.jobCount.store(id + 1, std::memory_order_release);
    if (g_service.started.load(std::memory_order_acquire))
        wakeThread();
    return id;
}

void acceptOnServiceThread(int signal)
{
    g_service.accepted.store(signal, std::memory_order_release);
    if (g_service.started.load(std::memory_order_acquire))
        wakeThread();
}

void requestServiceJob(int id)
{
    if (id < 0 || id >= g_service.jobCount.load(std::memory_order_acquire))
        return;
    g_service.jobs[id].requested.store(true, std::memory_order_release);
    wakeThread();
}

bool startServiceThread(const char** why)
{
    if (g_service.started.load(std::memory_order_acquire))
        return true;
    if (g_service.parking.load(std::memory_order_seq_cst)) {
        g_service.startWhenResumed.store(true, std::memory_order_seq_cst); // ppe_set re-arming while parked
        return true;
    }
    if (!mapStack() || !createThread()) {
        *why = "cannot start the collector thread";
        if (g_service.startedHook)
            g_service.startedHook(false); // nothing may stay for a table that will not be
        return false;
    }
    g_service.pid.store(getpid(), std::memory_order_relaxed);
    g_service.started.store(true, std::memory_order_release);
    waitForTid();
    if (g_service.startedHook)
        g_service.startedHook(g_ownDescriptors.load(std::memory_order_relaxed));
    return true;
}

void setServiceThreadHooks(void (*started)(bool ownTable), void (*leaving)())
{
    g_service.startedHook = started;
    g_service.leavingHook = leaving;
}

bool serviceThreadStartPending()
{
    const pid_t pid = g_service.pid.load(std::memory_order_relaxed);
    if (pid && pid != getpid())
        return false; // a forked child before its restart (which it may not get)
    return !g_service.started.load(std::memory_order_acquire) || g_service.parking.load(std::memory_order_seq_cst);
}

bool serviceThreadServes() { return available() && !g_service.stopped.load(std::memory_order_acquire); }

void stopServiceJobs() { g_service.stopped.store(true, std::memory_order_seq_cst); }

void waitForServiceJobs(uint64_t limitNs)
{
    if (onServiceThread())
        return; // the collector thread itself is ending the process: no job runs
    const uint64_t deadline = monotonicNs() + limitNs;
    while (g_service.busy.load(std::memory_order_seq_cst) && monotonicNs() < deadline) {
        const timespec slice { 0, 1'000'000 };
        nanosleep(&slice, nullptr);
    }
}

void setServiceJobPeriod(int id, uint64_t periodNs)
{
    if (id >= 0 && id < g_service.jobCount.load(std::memory_order_acquire) && periodNs)
        g_service.jobs[id].periodNs = periodNs;
}

bool onServiceThread()
{
    const char* here = static_cast<const char*>(__builtin_frame_address(0));
    const char* stack = g_service.stack;
    return stack && here >= stack && here < stack + kStackBytes;
}

pid_t serviceThreadId() { return g_service.tid.load(std::memory_order_acquire); }

bool runEndingOnServiceThread(void (*ending)())
{
    if (!available() || onServiceThread())
        return false;
    g_service.ending.store(ending, std::memory_order_seq_cst);
    wakeThread();
    if (available())
        return true;
    // Parked meanwhile: the thread took it before it left, or it is the caller's to run.
    return g_service.ending.exchange(nullptr, std::memory_order_acq_rel) == nullptr;
}

void parkServiceThread()
{
    pthread_mutex_lock(&g_parking.lock);
    if (g_parking.depth++ == 0)
        g_parking.stoppedOne = stopThread();
    pthread_mutex_unlock(&g_parking.lock);
}

void resumeServiceThread()
{
    pthread_mutex_lock(&g_parking.lock);
    if (--g_parking.depth == 0
        && (g_service.startWhenResumed.exchange(false, std::memory_order_seq_cst) || g_parking.stoppedOne)) {
        g_parking.stoppedOne = false;
        g_service.parking.store(false, std::memory_order_seq_cst);
        const char* why = nullptr;
        startServiceThread(&why);
    }
    pthread_mutex_unlock(&g_parking.lock);
}

bool restartServiceThreadInChild(const char** why)
{
    if (!g_service.started.load(std::memory_order_acquire) || g_service.stopped.load(std::memory_order_acquire))
        return true;
    g_service.started.store(false, std::memory_order_relaxed);
    g_service.tid.store(0, std::memory_order_relaxed);
    g_service.wake.store(0, std::memory_order_relaxed);
    g_service.busy.store(false, std::memory_order_relaxed);
    g_service.parking.store(false, std::memory_order_relaxed);
    g_service.ending.store(nullptr, std::memory_order_relaxed);
    g_parking = Parking {}; // only the forking thread came along: nobody is inside unshare here
    const uint64_t now = monotonicNs();
    for (int i = 0; i < g_service.jobCount.load(std::memory_order_relaxed); ++i) {
        Job& job = g_service.jobs[i];
        job.dueNs.store(now + job.periodNs, std::memory_order_relaxed);
        job.skipped.store(0, std::memory_order_relaxed);
        job.requested.store(false, std::memory_order_relaxed);
    }
    return startServiceThread(why);
}

uint64_t skippedServiceRuns(int id)
{
    if (id < 0 || id >= g_service.jobCount.load(std::memory_order_acquire))
        return 0;
    return g_service.jobs[id].skipped.load(std::memory_order_relaxed);
}

bool ownDescriptorTable() { return onServiceThread() && g_ownDescriptors.load(std::memory_order_relaxed); }

uint32_t serviceThreadCpuMs()
{
    const pid_t tid = serviceThreadId();
    return tid ? uint32_t(threadCpuNs(tid) / 1'000'000) : 0;
}

} // namespace ppe
