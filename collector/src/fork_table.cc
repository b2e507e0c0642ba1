#include "fork_table.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr uint32_t kSlots = 1024;
    constexpr uint32_t kHeld = 256; // samples held for one child: 128 ms of one CPU at 2 kHz

    struct Slot {
        // pid << 32 | owner << 1 | took-over; 0: free.
        std::atomic<uint64_t> word;
        std::atomic<uint32_t> held; // samples written below
        uint32_t unused;
        uint64_t pcs[kHeld];
        uint32_t tids[kHeld];
    };

    Slot* g_table = nullptr;

    uint64_t wordOf(pid_t pid, pid_t owner, bool own)
    {
        return uint64_t(uint32_t(pid)) << 32 | uint64_t(uint32_t(owner) & 0x7fffffff) << 1 | (own ? 1 : 0);
    }

    pid_t pidOf(uint64_t word) { return pid_t(word >> 32); }
    pid_t ownerOf(uint64_t word) { return pid_t((word >> 1) & 0x7fffffff); }
    bool tookOver(uint64_t word) { return word & 1; }

    Slot* slotOf(pid_t pid) { return g_table ? &g_table[uint32_t(pid) % kSlots] : nullptr; }

    void giveHeld(Slot& slot, TakeSample take)
    {
        const uint32_t n = slot.held.load(std::memory_order_acquire);
        for (uint32_t i = 0; i < n && i < kHeld; ++i)
            take(uintptr_t(slot.pcs[i]), pid_t(slot.tids[i]), 1);
        slot.held.store(0, std::memory_order_release);
    }

    bool ended(pid_t pid) { return syscall(SYS_kill, pid, 0) != 0 && errno == ESRCH; }

} // namespace

bool createForkTable()
{
    if (g_table)
        return true;
    void* memory = mmap(
        nullptr, sizeof(Slot) * kSlots, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (memory == MAP_FAILED)
        return false;
    g_table = static_cast<Slot*>(memory); // zero pages: every slot free
    return true;
}

bool registerForkedChild(pid_t pid, pid_t owner)
{
    Slot* slot = slotOf(pid);
    if (!slot)
        return false;
    // A slot still used by an older process of the same residue is taken over: that process ended
    // long ago (pids wrap), or its samples are counted as foreign from now on.
    slot->word.store(0, std::memory_order_release);
    slot->held.store(0, std::memory_order_relaxed);
    slot->word.store(wordOf(pid, owner, false), std::memory_order_release);
    return true;
}

ForkRole forkRoleOf(pid_t pid, pid_t self)
{
    const Slot* slot = slotOf(pid);
    if (!slot)
        return ForkRole::Unknown;
    const uint64_t word = slot->word.load(std::memory_order_acquire);
    if (!word || pidOf(word) != pid)
        return ForkRole::Unknown;
    return !tookOver(word) && ownerOf(word) == self ? ForkRole::Held : ForkRole::Elsewhere;
}

bool holdSample(pid_t pid, uint64_t pc, pid_t tid)
{
    Slot* slot = slotOf(pid);
    const uint32_t n = slot ? slot->held.load(std::memory_order_relaxed) : kHeld;
    if (n >= kHeld)
        return false;
    slot->pcs[n] = pc;
    slot->tids[n] = uint32_t(tid);
    slot->held.store(n + 1, std::memory_order_release);
    return true;
}

void dropHeldSamples(pid_t pid)
{
    Slot* slot = slotOf(pid);
    if (!slot)
        return;
    const uint64_t word = slot->word.load(std::memory_order_acquire);
    if (pidOf(word) == pid)
        slot->word.store(word | 1, std::memory_order_release); // its owner holds nothing more
    slot->held.store(0, std::memory_order_release);
}

uint64_t foldEndedChildren(pid_t self, TakeSample take)
{
    if (!g_table)
        return 0;
    uint64_t folded = 0;
    for (uint32_t i = 0; i < kSlots; ++i) {
        Slot& slot = g_table[i];
        const uint64_t word = slot.word.load(std::memory_order_acquire);
        if (!word || tookOver(word) || ownerOf(word) != self || !ended(pidOf(word)))
            continue;
        giveHeld(slot, take);
        slot.word.store(0, std::memory_order_release);
        ++folded;
    }
    return folded;
}

} // namespace ppe
