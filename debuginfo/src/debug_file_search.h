// Finding the split debug file of an ELF file, as GDB does.
#pragma once

#include "elf_file.h"

namespace ppe::debuginfo {

// The split debug file of `elf` (at `path`, with build id `buildId`): by build id under each of
// options.debugRoots, then through .gnu_debuglink (next to the file, in its .debug/, under each
// root) with the CRC checked. `found` gets its path.
std::optional<OpenedElf> findDebugFile(const std::string& path, const obj::ELFObjectFileBase& elf,
    const std::string& buildId, const Options& options, std::string& found);

} // namespace ppe::debuginfo
