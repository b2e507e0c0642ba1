#include "process_end.h"

#include "collector_state.h"
#include "lifecycle.h"
#include "messages.h"
#include "service_thread.h"

#include <atomic>
#include <csignal>
#include <ctime>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

namespace ppe {

namespace {

    // Deep enough for finish() (about 15 KB by -fstack-usage) many times over; only touched pages
    // cost memory.
    constexpr size_t kEndingStackBytes = 256 << 10;

    struct Ending {
        std::atomic<const char*> reason { nullptr }; // the first ending's
        std::atomic<uint32_t> done { 0 }; // futex word: 1 once the final profile is written or failed
        std::atomic<pid_t> writer { 0 }; // the thread writing it
        char* stack = nullptr; // kEndingStackBytes with a guard page at the bottom
        std::atomic<bool> stackInUse { false };
        ucontext_t onStack {};
        ucontext_t back {};
    };

    Ending g_ending;

    pid_t currentTid() { return pid_t(syscall(SYS_gettid)); }

    uint64_t monotonicNs()
    {
        timespec t {};
        clock_gettime(CLOCK_MONOTONIC, &t);
        return uint64_t(t.tv_sec) * 1'000'000'000 + uint64_t(t.tv_nsec);
    }

    void writeFinalProfile() { finish(g_ending.reason.load(std::memory_order_acquire)); }

    // The profile is this process's to write: not a vfork child's (it shares the parent's memory and
    // runs no atfork handler; glibc's getpid() is a system call), and the collector is on.
    bool ownsProfile()
    {
        const LiveProfile* live = g_ppe.live.load(std::memory_order_acquire);
        return live && live->histogram.record->pid == uint64_t(getpid())
            && g_ppe.phase.load(std::memory_order_acquire) != Phase::Off;
    }

    // writeFinalProfile on the ending stack (makecontext/swapcontext: plain C library calls, no
    // lock, usable in a signal handler in glibc), or where it is when the stack is taken (by an
    // ending on another thread, whose finish() this one's returns from at once) or missing.
    void writeOnEndingStack()
    {
        if (onServiceThread() || !g_ending.stack || g_ending.stackInUse.exchange(true, std::memory_order_acquire)) {
            writeFinalProfile();
            return;
        }
        const size_t guard = size_t(sysconf(_SC_PAGESIZE));
        getcontext(&g_ending.onStack);
        g_ending.onStack.uc_stack.ss_sp = g_ending.stack + guard;
        g_ending.onStack.uc_stack.ss_size = kEndingStackBytes - guard;
        g_ending.onStack.uc_link = &g_ending.back;
        makecontext(&g_ending.onStack, writeFinalProfile, 0);
        swapcontext(&g_ending.back, &g_ending.onStack);
        g_ending.stackInUse.store(false, std::memory_order_release);
    }

    void waitForFinalProfile()
    {
        if (g_ending.writer.load(std::memory_order_acquire) == currentTid())
            return; // this thread is writing it, interrupted by a signal: nothing to wait for
        const uint64_t deadline = monotonicNs() + kEndingDeadlineNs;
        while (!g_ending.done.load(std::memory_order_acquire)) {
            const uint64_t now = monotonicNs();
            if (now >= deadline || g_ppe.phase.load(std::memory_order_acquire) == Phase::Off) {
                if (now >= deadline && g_ppe.livePath[0])
                    say({ "the profile was not written in time; the samples are in ", g_ppe.livePath,
                        " (ppe --recover)" });
                return;
            }
            const uint64_t slice = deadline - now < 100'000'000 ? deadline - now : 100'000'000;
            const timespec wait { 0, long(slice) };
            syscall(SYS_futex, &g_ending.done, FUTEX_WAIT_PRIVATE, 0, &wait, nullptr, 0);
        }
    }

} // namespace

bool prepareProcessEnd()
{
    if (g_ending.stack)
        return true;
    void* memory
        = mmap(nullptr, kEndingStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
    if (memory == MAP_FAILED)
        return false;
    mprotect(memory, size_t(sysconf(_SC_PAGESIZE)), PROT_NONE);
    g_ending.stack = static_cast<char*>(memory);
    return true;
}

void endProcess(const char* reason)
{
    if (!ownsProfile())
        return;
    // Nothing runs on top of the wait: a sampling signal's handler would nest on the program's
    // alternate stack when the ending is in a handler there (a tick of the POSIX timer, 3 KB of
    // kernel frame and more, overflowed an 8 KB SIGSTKSZ stack). Restored after: exec keeps the mask.
    sigset_t all;
    sigset_t saved;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &saved);
    const char* none = nullptr;
    g_ending.reason.compare_exchange_strong(none, reason, std::memory_order_acq_rel);
    if (!runEndingOnServiceThread(writeFinalProfile))
        writeOnEndingStack();
    waitForFinalProfile();
    pthread_sigmask(SIG_SETMASK, &saved, nullptr);
}

void finalProfileStarted() { g_ending.writer.store(currentTid(), std::memory_order_release); }

void finalProfileDone()
{
    g_ending.done.store(1, std::memory_order_release);
    syscall(SYS_futex, &g_ending.done, FUTEX_WAKE_PRIVATE, INT32_MAX, nullptr, nullptr, 0);
}

void finishBeforeProcessEnds(const char* reason) { endProcess(reason); }

} // namespace ppe
