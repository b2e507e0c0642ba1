// Inclusive call counts by code injection (issue 37, thesis §4.2), the second way beside the
// breakpoints of call_counts.h, for targets whose code can be written: each function's entry is
// patched with a branch to a trampoline (trampoline.h) in a scratch region of target memory, whose
// counters the target keeps itself, without a stop per call. The region holds the counters first,
// then the trampolines a 16 KiB page apart where it is large enough (a store to a page of
// translated code makes QEMU translate it anew: 80-150 us a call on qemu-arc, against 50 ns).
//
// The run: a breakpoint at `main`; when the program gets there (after its constructors, which may
// make its code writable), the trampolines are written to the scratch region and the entries are
// patched (each patch through the undo journal, so that `ppe-arc restore` puts the bytes back after
// a SIGKILL); a breakpoint at main's return address; when main returns (or at --duration or an
// interrupt), the counters are read, the entries restored and read back against the original
// bytes, and the program runs to its end. The scratch region is written without the journal and
// left holding the trampolines: a call under way when ppe-arc stopped (or was killed) still returns
// through its exit stub, which must stay there.
//
// Refused with one line naming the function and why: an entry checkPatchSite refuses (a moved
// instruction that reads the PC or transfers control, a branch into the replaced bytes), code the
// server will not write (qemu-arc's E14 on a program that did not make its code writable), or a
// scratch region too small.
#pragma once

#include "ppe/arc/elf_image.h"
#include "ppe/arc/trampoline.h"
#include "ppe/gdbremote/target_access.h"

#include <atomic>
#include <chrono>
#include <functional>
#include <optional>
#include <span>

namespace ppe::arc {

// Where the patch of `name` goes and what it moves, from its bytes `function` (run-time addresses
// from `start`, the entry) for a trampoline at `code`; the refusal names the function.
Result<PatchSite> planPatch(const std::string& name, std::span<const uint8_t> function, uint32_t start, uint32_t code);

struct InjectOptions {
    uint64_t bias = 0; // run-time address = link-time address + bias
    uint32_t scratch = 0, scratchSize = 0; // run-time, writable and executable by the program
    uint32_t capacity = 64; // saved returns per function
    HookAction action = HookAction::Counters;
    uint32_t pctControl = aux::kPctControl; // the PCT action's register (TrampolineRequest::control)
    // The PCT action's counter, read when main returns (or at the cut), before the removal undoes
    // the journal, the counter's configuration with it; none for the Counters action.
    std::function<Result<uint64_t>()> counter;
    std::chrono::milliseconds duration { 0 }; // 0: until main returns
};

struct InjectedCalls {
    std::string name;
    uint32_t entry = 0, trampoline = 0, data = 0, patchSize = 0;
    uint32_t calls = 0, returns = 0, depth = 0, maxDepth = 0, overflow = 0; // the target's counters
    std::string original, restored; // the entry's bytes before the patch and read back after its removal
};

struct InjectionResult {
    std::vector<InjectedCalls> functions;
    double seconds = 0; // from the patches in to the counters read
    std::string end; // "main returned", "duration", "interrupted"
    uint64_t stops = 0; // stops of the core: two breakpoints, whatever the number of calls
    std::optional<uint64_t> counted; // InjectOptions::counter's value
};

// Counts the calls of `functions` (link-time entries) in the stopped ARC target; `main` is the
// program's main function (link-time).
Result<InjectionResult> countCallsByInjection(gdbremote::TargetControl& control, gdbremote::TargetAccess& access,
    const std::vector<ElfFunction>& functions, const ElfFunction& main, const InjectOptions& options,
    const std::atomic<bool>* stop);

} // namespace ppe::arc
