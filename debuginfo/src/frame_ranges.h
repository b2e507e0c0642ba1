// Where code begins and ends by the call frame information every x86-64 object carries.
#pragma once

#include "elf_file.h"

#include <optional>

namespace ppe::debuginfo {

// The code ranges of the FDEs of `elf`'s .eh_frame, sorted by start; empty when there is none or it
// cannot be read. Reads through LLVM's DWARF library: call it where a crash is contained.
std::vector<AddressRange> frameRanges(const obj::ELFObjectFileBase& elf);

// The same for only the FDEs that hold the start of a range of `wanted` (sorted by start) or begin
// inside one, found by binary search in .eh_frame_hdr's table, each parsed by LLVM alone: what
// frameRanges gives for those addresses, at a cost that follows `wanted`, not the size of
// .eh_frame. nullopt when there is no table to trust (none, an encoding it cannot search, an
// offset outside its section, an FDE that does not begin where the table says): then frameRanges.
std::optional<std::vector<AddressRange>> frameRangesAt(
    const obj::ELFObjectFileBase& elf, const std::vector<AddressRange>& wanted);

} // namespace ppe::debuginfo
