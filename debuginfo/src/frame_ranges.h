// Where code begins and ends by the call frame information every x86-64 object carries.
#pragma once

#include "elf_file.h"

namespace ppe::debuginfo {

// The code ranges of the FDEs of `elf`'s .eh_frame, sorted by start; empty when there is none or it
// cannot be read. Reads through LLVM's DWARF library: call it where a crash is contained.
std::vector<AddressRange> frameRanges(const obj::ELFObjectFileBase& elf);

} // namespace ppe::debuginfo
