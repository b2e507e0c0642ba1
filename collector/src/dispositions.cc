#include "dispositions.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <pthread.h>
#include <sched.h>

namespace ppe {

namespace {

    enum Role : uint8_t { Untouched, Owned, Guarded };

    // What the kernel holds for a guarded signal: the program's own action; the guard (the
    // program's is the default); or the one-shot trampoline, for a program handler with
    // SA_RESETHAND (otherwise the kernel's reset would leave the default without the guard).
    enum Held : uint8_t { ProgramAction, Guard, OneShot };

    constexpr size_t kWords = (sizeof(struct sigaction) + 7) / 8;

    // A signal's state. `program` is the program's action while the kernel does not hold it
    // (owned, or guarded and not ProgramAction); otherwise the kernel's is the program's.
    struct Slot {
        std::atomic<uint8_t> role { Untouched };
        std::atomic<uint8_t> held { ProgramAction };
        std::atomic<uint32_t> sequence { 0 }; // odd while `program` is being written
        uint64_t program[kWords] = {}; // a struct sigaction, word by word (atomic_ref)
        // The one-shot handler the trampoline calls (the kernel chose it: the program may have set
        // another action since).
        std::atomic<void*> oneShot { nullptr };
        std::atomic<bool> oneShotSiginfo { false };
        // The kernel's action has g_quiet in its mask because the collector put it there (quieten).
        std::atomic<bool> quieted { false };
    };

    Slot g_slots[NSIG];
    std::atomic<bool> g_locked { false };
    struct sigaction g_guard { }; // the ending signals' guard
    std::atomic<int> g_quiet { 0 }; // the sampling signal, blocked in the program's alternate-stack handlers
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

    // A handler that runs on the alternate stack gets the sampling signal in its kernel mask: a
    // sample nesting in it needs a second kernel frame (3.6 KB with AVX-512 state) on a stack the
    // program sized for one (an 8 KB SIGSTKSZ stack overflowed under a SIGTERM handler calling
    // _exit). The sample waits for the handler's return. True when it was added.
    bool quieten(struct sigaction& action)
    {
        const int quiet = g_quiet.load(std::memory_order_relaxed);
        if (!quiet || !(action.sa_flags & SA_ONSTACK) || isDefault(action) || action.sa_handler == SIG_IGN
            || sigismember(&action.sa_mask, quiet))
            return false;
        sigaddset(&action.sa_mask, quiet);
        return true;
    }

    // The kernel's action as the program set it: without what quieten added.
    void unquieten(const Slot& slot, struct sigaction* action)
    {
        if (action && slot.quieted.load(std::memory_order_relaxed))
            sigdelset(&action->sa_mask, g_quiet.load(std::memory_order_relaxed));
    }

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

    bool isOneShotHandler(const struct sigaction& action)
    {
        return (action.sa_flags & SA_RESETHAND) && action.sa_handler != SIG_DFL && action.sa_handler != SIG_IGN;
    }

    void onOneShot(int signal, siginfo_t* info, void* context);

    // What goes to the kernel for the program's `act` (nullptr: nothing, the guard is in already),
    // and what the kernel will then hold.
    const struct sigaction* forKernel(const struct sigaction& act, Held held, struct sigaction* trampoline, Held* next)
    {
        if (isDefault(act)) {
            *next = Guard;
            return held == Guard ? nullptr : &g_guard;
        }
        if (!isOneShotHandler(act)) {
            *next = ProgramAction;
            return &act;
        }
        *next = OneShot;
        *trampoline = act; // the program's flags and mask: the kernel applies them as its own
        trampoline->sa_sigaction = onOneShot;
        trampoline->sa_flags |= SA_SIGINFO;
        return trampoline;
    }

    // A guarded signal: the kernel gets the program's action, the guard instead of the default, or
    // the trampoline instead of a one-shot handler.
    int setGuarded(int signal, Slot& slot, const struct sigaction* act, struct sigaction* was)
    {
        const Held held = Held(slot.held.load(std::memory_order_relaxed));
        if (held != ProgramAction)
            load(slot, was);
        if (!act) {
            if (held != ProgramAction)
                return 0;
            const int result = __sigaction(signal, nullptr, was);
            unquieten(slot, was);
            return result;
        }
        struct sigaction quiet = *act;
        const bool added = quieten(quiet);
        struct sigaction trampoline { };
        struct sigaction kernelWas { };
        Held next = ProgramAction;
        const struct sigaction* given = forKernel(quiet, held, &trampoline, &next);
        if (given && __sigaction(signal, given, &kernelWas) != 0)
            return -1;
        unquieten(slot, &kernelWas);
        if (given)
            slot.quieted.store(added && next != Guard, std::memory_order_relaxed);
        if (next == OneShot) {
            slot.oneShot.store(reinterpret_cast<void*>(act->sa_sigaction), std::memory_order_relaxed);
            slot.oneShotSiginfo.store(act->sa_flags & SA_SIGINFO, std::memory_order_release);
        }
        if (next != ProgramAction)
            store(slot, asKept(*act));
        slot.held.store(next, std::memory_order_release);
        if (held == ProgramAction)
            *was = kernelWas;
        return 0;
    }

    // The kernel has just reset the one-shot action to the default (SA_RESETHAND) and delivered
    // here: the guard goes back in, unless the program has set another action meanwhile, and the
    // program's handler runs (the kernel already applied its mask and flags).
    void onOneShot(int signal, siginfo_t* info, void* context)
    {
        Slot& slot = g_slots[signal];
        {
            WriteLock lock;
            if (slot.held.load(std::memory_order_relaxed) == OneShot) {
                struct sigaction reset { };
                load(slot, &reset);
                reset.sa_handler = SIG_DFL;
                store(slot, reset);
                __sigaction(signal, &g_guard, nullptr);
                slot.held.store(Guard, std::memory_order_release);
            }
        }
        void* handler = slot.oneShot.load(std::memory_order_relaxed);
        if (slot.oneShotSiginfo.load(std::memory_order_acquire))
            reinterpret_cast<void (*)(int, siginfo_t*, void*)>(handler)(signal, info, context);
        else
            reinterpret_cast<void (*)(int)>(handler)(signal);
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
    unquieten(slot, &previous);
    slot.quieted.store(false, std::memory_order_relaxed);
    learnKeeping(signal, action);
    if (slot.role.load(std::memory_order_relaxed) == Untouched
        || slot.held.load(std::memory_order_relaxed) == ProgramAction)
        store(slot, previous); // the kernel had the program's own
    slot.held.store(ProgramAction, std::memory_order_relaxed);
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
    slot.held.store(Guard, std::memory_order_release);
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
    g_slots[signal].quieted.store(false, std::memory_order_relaxed);
    // The kernel now holds the program's (default) action: the guard is out, for good.
    g_slots[signal].held.store(ProgramAction, std::memory_order_release);
    g_slots[signal].role.store(Guarded, std::memory_order_release);
}

namespace {

    // An untouched signal's action goes to the kernel as given, quietened (above); what the program
    // reads back is its own.
    int setUntouched(int signal, const struct sigaction* act, struct sigaction* old)
    {
        if (signal <= 0 || signal >= NSIG
            || (!g_quiet.load(std::memory_order_relaxed) && !g_slots[signal].quieted.load(std::memory_order_relaxed)))
            return __sigaction(signal, act, old);
        struct sigaction wanted { };
        if (act)
            wanted = *act; // copied outside the lock, as programSigaction says
        const bool added = act && quieten(wanted);
        struct sigaction was { };
        int result = 0;
        {
            WriteLock lock;
            Slot& slot = g_slots[signal];
            result = __sigaction(signal, act ? &wanted : nullptr, &was);
            unquieten(slot, &was);
            if (result == 0 && act)
                slot.quieted.store(added, std::memory_order_relaxed);
        }
        if (result == 0 && old)
            *old = was;
        return result;
    }

} // namespace

void quietOnAlternateStacks(int signal)
{
    WriteLock lock;
    const int before = g_quiet.exchange(signal, std::memory_order_relaxed);
    for (int i = 1; i < NSIG; ++i) {
        Slot& slot = g_slots[i];
        struct sigaction action { };
        if (slot.role.load(std::memory_order_relaxed) == Owned || __sigaction(i, nullptr, &action) != 0)
            continue;
        const bool had = slot.quieted.load(std::memory_order_relaxed);
        if (had)
            sigdelset(&action.sa_mask, before);
        const bool added = quieten(action);
        if ((had || added) && __sigaction(i, &action, nullptr) == 0)
            slot.quieted.store(added, std::memory_order_relaxed);
    }
}

int quietSignal() { return g_quiet.load(std::memory_order_relaxed); }

int programSigaction(int signal, const struct sigaction* act, struct sigaction* old)
{
    const Role role = roleOf(signal);
    if (role == Untouched)
        return setUntouched(signal, act, old);
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
