// Reading one ELF file and its DWARF in the calling process.
#pragma once

#include "ppe/debuginfo/debug_info.h"

namespace ppe::debuginfo {

// What loadDebugInfo gives, read here; with `readDwarf` false only the symbols (for when reading
// the DWARF crashed the isolated reader).
Result<DebugInfo> loadInProcess(const std::string& path, const Options& options, bool readDwarf);

} // namespace ppe::debuginfo
