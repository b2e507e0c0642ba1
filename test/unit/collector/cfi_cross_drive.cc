// cfi_cross_drive: the unwinder's check (cfi_unwind_test.cc) for another architecture, built with a
// cross compiler and run under qemu-user: cfi_subject.c's leaf unwinds its own stack with the
// unwinder and with glibc's backtrace() (libgcc's unwinder) and prints both, then "agree" (exit 0)
// or "differ" (exit 1). C library only: the cross tool chain here has no C++ library.
#include "cfi_objects.h"
#include "cfi_unwind.h"

#include <execinfo.h>
#include <stdio.h>
#include <string.h>

extern "C" {
extern void (*cfi_hook)(uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr);
int cfi_subject_run(int depth);
}

namespace {

// Plain loads: qemu-user passes process_vm_readv's remote addresses to the host kernel untranslated
// (the x86-64 test reads as the collector does, through process_vm_readv).
bool readSelf(const void*, uint64_t address, void* out, size_t size)
{
    memcpy(out, reinterpret_cast<const void*>(address), size);
    return true;
}

int g_failed = 1;

void onLeaf(uint64_t pc, uint64_t sp, uint64_t fp, uint64_t lr)
{
    const ppe::MemoryReader memory { readSelf, nullptr };
    uint64_t pcs[128];
    const ppe::UnwindResult r = ppe::unwindPath(ppe::ObjectLookup { ppe::testing::ehFrameHdrOf, nullptr }, memory,
        memory, ppe::FrameRegisters { pc, sp, fp, lr, true }, pcs, 128);
    void* trace[128];
    const size_t n = size_t(backtrace(trace, 128));
    printf("unwound %zu frames (end %d); backtrace %zu\n", r.frames, int(r.end), n);
    // backtrace()'s first entry is this function; the unwinder's first is the leaf's own pc.
    bool same = r.frames + 1 == n && r.end == ppe::UnwindEnd::Outermost;
    for (size_t i = 0; i < r.frames || i + 1 < n; ++i) {
        const uint64_t mine = i < r.frames ? pcs[i] : 0, theirs = i + 1 < n ? uint64_t(trace[i + 1]) : 0;
        printf("  %#18llx %#18llx\n", static_cast<unsigned long long>(mine), static_cast<unsigned long long>(theirs));
        same = same && (i == 0 || mine == theirs);
    }
    g_failed = !same;
}

} // namespace

int main()
{
    cfi_hook = onLeaf;
    cfi_subject_run(5);
    puts(g_failed ? "differ" : "agree");
    return g_failed;
}
