#include "dispositions.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <sched.h>

namespace ppe {

namespace {

    enum Role : uint8_t { Untouched, Owned, Guarded };

    constexpr size_t kWords = (sizeof(struct sigaction) + 7) / 8;

    // A signal's state. `program` is the program's action while the kernel does not hold it (owned,
    // or guarded with the guard in); otherwise the kernel's is the program's and this is stale.
    struct Slot {
        std::atomic<uint8_t> role { Untouched };
        std::atomic<bool> guardIn { false };
        std::atomic<uint32_t> sequence { 0 }; // odd while `program` is being written
        uint64_t program[kWords] = {}; // a struct sigaction, word by word (atomic_ref)
    };

    Slot g_slots[NSIG];
    std::atomic<bool> g_locked { false };
    struct sigaction g_guard { }; // the ending signals' guard
    // How the kernel gives back an action set through the C library: glibc adds SA_RESTORER and
    // its own sa_restorer on x86, which sigaction(sig, NULL, &old) then reports.
    struct sigaction g_asKept { };
    int g_addedFlags = 0;
    bool g_learned = false;

    // Serialises the writers (sigaction calls of several threads, handlers resetting an action).
    // Every signal is blocked while it is held, so that no handler can interrupt its holder and
    // wait for it on the same thread.
    class WriteLock {
    public:
        WriteLock()
        {
            sigset_t all;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &m_saved);
            while (g_locked.exchange(true, std::memory_order_acquire))
                sched_yield();
        }
        ~WriteLock()
        {
            g_locked.store(false, std::memory_order_release);
            pthread_sigmask(SIG_SETMASK, &m_saved, nullptr);
        }
        WriteLock(const WriteLock&) = delete;
        WriteLock& operator=(const WriteLock&) = delete;

    private:
        sigset_t m_saved;
    };

    // A sequence lock (writers already serialised): readers copy, then retry if a write overlapped.
    void store(Slot& slot, const struct sigaction& action)
    {
        uint64_t words[kWords] = {};
        std::memcpy(words, &action, sizeof(action));
        const uint32_t sequence = slot.sequence.load(std::memory_order_relaxed);
        slot.sequence.store(sequence + 1, std::memory_order_relaxed);
        std::atomic_thread_fence(std::memory_order_release);
        for (size_t i = 0; i < kWords; ++i)
            std::atomic_ref<uint64_t>(slot.program[i]).store(words[i], std::memory_order_relaxed);
        slot.sequence.store(sequence + 2, std::memory_order_release);
    }

    void load(Slot& slot, struct sigaction* out)
    {
        uint64_t words[kWords];
        for (;;) {
            const uint32_t before = slot.sequence.load(std::memory_order_acquire);
            for (size_t i = 0; i < kWords; ++i)
                words[i] = std::atomic_ref<uint64_t>(slot.program[i]).load(std::memory_order_relaxed);
            std::atomic_thread_fence(std::memory_order_acquire);
            if (!(before & 1) && slot.sequence.load(std::memory_order_relaxed) == before)
                break;
            sched_yield(); // a writer on another thread, never interrupted: it finishes soon
        }
        std::memcpy(out, words, sizeof(*out));
    }

    bool isDefault(const struct sigaction& action) { return action.sa_handler == SIG_DFL; }

    // Learns, from the collector's own action as the kernel kept it, what the C library adds.
    void learnKeeping(int signal, const struct sigaction& given)
    {
        if (g_learned)
            return;
        __sigaction(signal, nullptr, &g_asKept);
        g_addedFlags = g_asKept.sa_flags & ~given.sa_flags;
        g_learned = true;
    }

    // `action` as sigaction(sig, NULL, &old) would report it had the kernel kept it.
    struct sigaction asKept(const struct sigaction& action)
    {
        struct sigaction kept = g_asKept;
        kept.sa_sigaction = action.sa_sigaction; // the union: sa_handler too
        kept.sa_flags = action.sa_flags | g_addedFlags;
        kept.sa_mask = action.sa_mask;
        sigdelset(&kept.sa_mask, SIGKILL); // the kernel never blocks these two
        sigdelset(&kept.sa_mask, SIGSTOP);
        return kept;
    }

    // An owned signal: the program's action is only recorded, the collector's stays in the kernel.
    void recordOwned(Slot& slot, const struct sigaction* act, struct sigaction* was)
    {
        load(slot, was);
        if (act)
            store(slot, asKept(*act));
    }

    // A guarded signal: the kernel gets the program's action, or the guard instead of the default.
    int setGuarded(int signal, Slot& slot, const struct sigaction* act, struct sigaction* was)
    {
        const bool guardIn = slot.guardIn.load(std::memory_order_relaxed);
        if (guardIn)
            load(slot, was);
        if (!act)
            return guardIn ? 0 : __sigaction(signal, nullptr, was);
        struct sigaction kernelWas { };
        if (isDefault(*act)) {
            if (!guardIn && __sigaction(signal, &g_guard, &kernelWas) != 0)
                return -1;
            store(slot, asKept(*act));
            slot.guardIn.store(true, std::memory_order_release);
        } else {
            if (__sigaction(signal, act, &kernelWas) != 0)
                return -1;
            slot.guardIn.store(false, std::memory_order_release);
        }
        if (!guardIn)
            *was = kernelWas;
        return 0;
    }

    Role roleOf(int signal)
    {
        if (signal <= 0 || signal >= NSIG)
            return Untouched;
        return Role(g_slots[signal].role.load(std::memory_order_acquire));
    }

} // namespace

bool ownSignal(int signal, const struct sigaction& action)
{
    WriteLock lock;
    Slot& slot = g_slots[signal];
    struct sigaction previous { };
    if (__sigaction(signal, &action, &previous) != 0)
        return false;
    learnKeeping(signal, action);
    const bool kernelHadProgramAction = slot.role.load(std::memory_order_relaxed) == Untouched
        || (slot.role.load(std::memory_order_relaxed) == Guarded && !slot.guardIn.load(std::memory_order_relaxed));
    if (kernelHadProgramAction)
        store(slot, previous);
    slot.guardIn.store(false, std::memory_order_relaxed);
    slot.role.store(Owned, std::memory_order_release);
    return true;
}

void guardSignal(int signal, const struct sigaction& guard)
{
    WriteLock lock;
    Slot& slot = g_slots[signal];
    if (slot.role.load(std::memory_order_relaxed) != Untouched)
        return; // owned (the snapshot signal), or guarded already
    g_guard = guard;
    struct sigaction current { };
    if (__sigaction(signal, nullptr, &current) != 0)
        return;
    slot.role.store(Guarded, std::memory_order_release);
    if (!isDefault(current) || __sigaction(signal, &guard, nullptr) != 0)
        return; // ignored or handled by the program: its action stays in the kernel
    learnKeeping(signal, guard);
    store(slot, current);
    slot.guardIn.store(true, std::memory_order_release);
}

bool collectorHolds(int signal)
{
    const Role role = roleOf(signal);
    return role == Owned || (role == Guarded && g_slots[signal].guardIn.load(std::memory_order_acquire));
}

bool ownsSignal(int signal) { return roleOf(signal) == Owned; }

void programAction(int signal, struct sigaction* out) { load(g_slots[signal], out); }

void resetProgramAction(int signal)
{
    WriteLock lock;
    struct sigaction action { };
    load(g_slots[signal], &action);
    action.sa_handler = SIG_DFL;
    store(g_slots[signal], action);
}

void takeDefaultAction(int signal)
{
    WriteLock lock;
    struct sigaction action { };
    load(g_slots[signal], &action);
    action.sa_handler = SIG_DFL;
    __sigaction(signal, &action, nullptr);
    // The kernel now holds the program's (default) action: the guard is out, for good.
    g_slots[signal].guardIn.store(false, std::memory_order_release);
    g_slots[signal].role.store(Guarded, std::memory_order_release);
}

int programSigaction(int signal, const struct sigaction* act, struct sigaction* old)
{
    const Role role = roleOf(signal);
    if (role == Untouched)
        return __sigaction(signal, act, old);
    // Copied in and out outside the lock: a bad pointer faults in the program's call, never while
    // the lock is held (the guard's handler would wait for it forever).
    struct sigaction wanted { };
    if (act)
        wanted = *act;
    struct sigaction was { };
    int result = 0;
    {
        WriteLock lock;
        Slot& slot = g_slots[signal];
        if (role == Owned)
            recordOwned(slot, act ? &wanted : nullptr, &was);
        else
            result = setGuarded(signal, slot, act ? &wanted : nullptr, &was);
    }
    if (result == 0 && old)
        *old = was;
    return result;
}

} // namespace ppe
