// Is the --elf file the program the target runs? Checked before the first sample, so that a
// profile never carries another program's names: the machine (e_machine against the target
// description's architecture), the entry point (the target's AT_ENTRY from qXfer:auxv:read against
// the ELF's entry plus the load bias, which is 0 for a fixed-address executable), the build id
// (the ELF's NT_GNU_BUILD_ID against the target's memory at the note's address) and, without a
// build id, the bytes at the entry point. Each refusal names both sides.
#pragma once

#include "ppe/arc/elf_image.h"
#include "ppe/gdbremote/session.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ppe::arc {

// The e_machine values an architecture of a target description may run; empty when unknown
// ("i386:x86-64" -> EM_X86_64, "arc:ARCv2" -> EM_ARCV2, ...).
std::vector<uint16_t> machinesOf(const std::string& architecture);

// The load bias of `elf` in the target once it is known to be the program the target runs; an
// error naming both sides otherwise.
Result<uint64_t> checkImage(gdbremote::Session& session, const ElfImage& elf, const std::string& architecture);

} // namespace ppe::arc
