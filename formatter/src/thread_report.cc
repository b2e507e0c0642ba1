#include "ppe/formatter/thread_report.h"

#include "ppe/core/ppe_writer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

namespace ppe::formatter {

namespace {

    // The system calls a thread is most often found blocked in, and the common others.
    const std::map<int64_t, const char*>& x86_64Calls()
    {
        static const std::map<int64_t, const char*> calls = { { 0, "read" }, { 1, "write" }, { 2, "open" },
            { 3, "close" }, { 4, "stat" }, { 5, "fstat" }, { 7, "poll" }, { 8, "lseek" }, { 9, "mmap" },
            { 11, "munmap" }, { 16, "ioctl" }, { 17, "pread64" }, { 18, "pwrite64" }, { 19, "readv" }, { 20, "writev" },
            { 23, "select" }, { 24, "sched_yield" }, { 26, "msync" }, { 34, "pause" }, { 35, "nanosleep" },
            { 42, "connect" }, { 43, "accept" }, { 44, "sendto" }, { 45, "recvfrom" }, { 46, "sendmsg" },
            { 47, "recvmsg" }, { 56, "clone" }, { 57, "fork" }, { 58, "vfork" }, { 59, "execve" }, { 61, "wait4" },
            { 65, "semop" }, { 69, "msgsnd" }, { 70, "msgrcv" }, { 72, "fcntl" }, { 73, "flock" }, { 74, "fsync" },
            { 75, "fdatasync" }, { 128, "rt_sigtimedwait" }, { 130, "rt_sigsuspend" }, { 202, "futex" },
            { 208, "io_getevents" }, { 220, "semtimedop" }, { 230, "clock_nanosleep" }, { 232, "epoll_wait" },
            { 240, "mq_timedsend" }, { 241, "mq_timedreceive" }, { 247, "waitid" }, { 257, "openat" },
            { 270, "pselect6" }, { 271, "ppoll" }, { 281, "epoll_pwait" }, { 288, "accept4" }, { 299, "recvmmsg" },
            { 307, "sendmmsg" }, { 318, "getrandom" }, { 426, "io_uring_enter" }, { 441, "epoll_pwait2" } };
        return calls;
    }

    // The generic numbering (asm-generic/unistd.h): AArch64, RISC-V, ARC and the other newer ports.
    const std::map<int64_t, const char*>& genericCalls()
    {
        static const std::map<int64_t, const char*> calls = { { 4, "io_getevents" }, { 22, "epoll_pwait" },
            { 25, "fcntl" }, { 29, "ioctl" }, { 56, "openat" }, { 57, "close" }, { 63, "read" }, { 64, "write" },
            { 65, "readv" }, { 66, "writev" }, { 67, "pread64" }, { 68, "pwrite64" }, { 72, "pselect6" },
            { 73, "ppoll" }, { 82, "fsync" }, { 83, "fdatasync" }, { 93, "exit" }, { 94, "exit_group" },
            { 95, "waitid" }, { 98, "futex" }, { 101, "nanosleep" }, { 115, "clock_nanosleep" }, { 124, "sched_yield" },
            { 129, "kill" }, { 133, "rt_sigsuspend" }, { 137, "rt_sigtimedwait" }, { 188, "msgrcv" }, { 189, "msgsnd" },
            { 193, "semtimedop" }, { 202, "accept" }, { 203, "connect" }, { 206, "sendto" }, { 207, "recvfrom" },
            { 211, "sendmsg" }, { 212, "recvmsg" }, { 214, "brk" }, { 215, "munmap" }, { 220, "clone" },
            { 221, "execve" }, { 222, "mmap" }, { 242, "accept4" }, { 260, "wait4" }, { 278, "getrandom" },
            { 426, "io_uring_enter" }, { 441, "epoll_pwait2" } };
        return calls;
    }

    const std::map<int64_t, const char*>* callsOf(const std::string& arch)
    {
        if (arch == "x86_64")
            return &x86_64Calls();
        if (arch == "aarch64" || arch.starts_with("riscv") || arch.starts_with("arc") || arch == "loongarch64")
            return &genericCalls();
        return nullptr;
    }

    struct ThreadWaits {
        std::string name; // "" when the thread table does not name it
        double seconds = 0; // all its waits
        bool inProgram = false; // one of its waits had a call of the program's code on the stack
    };

    // The threads the `blocked` records name, with their totals.
    std::map<uint64_t, ThreadWaits> threadWaits(const Profile& p)
    {
        std::map<uint64_t, ThreadWaits> threads;
        for (const BlockedPlace& place : p.blocked) {
            if (!place.tid)
                continue;
            ThreadWaits& t = threads[place.tid];
            t.seconds += place.seconds;
            t.inProgram = t.inProgram || place.caller.kind != CodeLocation::Kind::None;
        }
        for (const ThreadSamples& t : p.threads) {
            if (auto it = threads.find(t.tid); it != threads.end())
                it->second.name = t.name;
        }
        return threads;
    }

    // A thread that took no sample and only waited; where the waits name their threads, also never
    // with the program's code on the stack (a worker of the program that only waited is not a helper).
    bool isHelper(const ThreadSamples& t, const std::map<uint64_t, ThreadWaits>& waits)
    {
        if (!t.tid || t.samples || t.blockedSeconds <= 0)
            return false;
        const auto it = waits.find(t.tid);
        return waits.empty() || it == waits.end() || !it->second.inProgram;
    }

} // namespace

double secondsPerSample(const Profile& p)
{
    if (!countsTimerTicks(p.mechanism.kind()) && p.activeTime > 0 && p.total > 0)
        return p.activeTime / double(p.total);
    return double(p.interval) * 1e-7;
}

std::string syscallName(const std::string& arch, int64_t number)
{
    if (number == -2)
        return "(other system calls)";
    if (number < 0)
        return "(not in a system call)";
    if (const auto* calls = callsOf(arch)) {
        if (auto it = calls->find(number); it != calls->end())
            return it->second;
    }
    return fmt::format("syscall {}", number);
}

void addThreads(Report& report)
{
    const Profile& p = report.profile;
    std::vector<ThreadSamples> threads = p.threads;
    const double interval = secondsPerSample(p);
    const auto seconds = [interval](const ThreadSamples& t) { return double(t.samples) * interval + t.blockedSeconds; };
    std::stable_sort(threads.begin(), threads.end(),
        [&](const ThreadSamples& a, const ThreadSamples& b) { return seconds(a) > seconds(b); });
    if (threads.size() > kMaxThreadRows) {
        report.moreThreads = threads.size() - kMaxThreadRows;
        threads.resize(kMaxThreadRows);
    }
    // A library's helper threads (an MPI progress thread in poll) after the others, so that the
    // program's own threads lead (issue 34).
    const std::map<uint64_t, ThreadWaits> waits = threadWaits(p);
    std::stable_sort(threads.begin(), threads.end(), [&](const ThreadSamples& a, const ThreadSamples& b) {
        if (isHelper(a, waits) != isHelper(b, waits))
            return isHelper(b, waits);
        return (a.tid ? a.tid : UINT64_MAX) < (b.tid ? b.tid : UINT64_MAX);
    });
    for (const ThreadSamples& t : threads) {
        ThreadRow row { t.tid, t.name, t.samples, 0, t.cpuSeconds, 0, t.blockedSeconds, isHelper(t, waits) };
        row.percent = p.total ? 100.0 * double(t.samples) / double(p.total) : 0;
        row.rate = t.cpuSeconds > 0 ? double(t.samples) / t.cpuSeconds : 0;
        report.threads.push_back(std::move(row));
    }
}

void addBlockedTime(Report& report, const PlaceNamer& name)
{
    const Profile& p = report.profile;
    if (!p.scan)
        return;
    BlockedTime b;
    b.runningSeconds = double(p.total) * secondsPerSample(p);
    const std::map<uint64_t, ThreadWaits> threads = threadWaits(p);
    for (const BlockedPlace& place : p.blocked) {
        b.blockedSeconds += place.seconds;
        b.byThread = b.byThread || place.tid;
    }
    b.scans = p.scan->scans;
    b.scanPeriod = p.scan->period;
    b.scanCost = p.scan->cost;
    const double all = b.runningSeconds + b.blockedSeconds;
    for (const BlockedPlace& place : p.blocked) {
        BlockedRow row { syscallName(p.arch, place.syscall), name(place.site), name(place.caller), place.seconds };
        row.error = place.observations ? place.seconds / std::sqrt(double(place.observations)) : place.seconds;
        row.percent = all > 0 ? 100.0 * place.seconds / all : 0;
        row.observations = place.observations;
        row.tid = place.tid;
        const ThreadWaits* t = place.tid ? &threads.at(place.tid) : nullptr;
        row.thread = t ? t->name : "";
        row.threadSeconds = t ? t->seconds : place.seconds;
        row.inProgram = t ? t->inProgram : place.caller.kind != CodeLocation::Kind::None;
        (row.inProgram ? b.programSeconds : b.helperSeconds) += place.seconds;
        b.rows.push_back(std::move(row));
    }
    // The program's own waits lead: a library's helper threads (MPI progress threads in poll) may
    // wait all the run and would bury them (issue 34). Then each thread's waits together.
    std::stable_sort(b.rows.begin(), b.rows.end(), [](const BlockedRow& x, const BlockedRow& y) {
        return std::tuple(!x.inProgram, -x.threadSeconds, x.tid, -x.seconds)
            < std::tuple(!y.inProgram, -y.threadSeconds, y.tid, -y.seconds);
    });
    report.blocked = std::move(b);
}

std::string blockedGroupsLine(const BlockedTime& b, const std::string& lineBreak)
{
    if (b.byThread)
        return fmt::format("Waits by thread. The program's own threads (they waited with a call of its code on the "
                           "stack) {:.2f} s, listed first;{}threads that never did (a library's helper threads, such "
                           "as MPI progress threads) {:.2f} s, listed after them",
            b.programSeconds, lineBreak, b.helperSeconds);
    return fmt::format("The program's own waits (a call of its code on the stack) {:.2f} s, listed first; waits with "
                       "no program code on the stack{}(threads that ran none: a library's helper threads, such as "
                       "MPI progress threads) {:.2f} s, listed after them",
        b.programSeconds, lineBreak, b.helperSeconds);
}

} // namespace ppe::formatter
