// Where the target's code is loaded: the load bias of a position-independent executable (from the
// target's auxiliary vector, qXfer:auxv:read: AT_ENTRY less the ELF's entry point) and its shared
// libraries (the server's SVR4 library list, qXfer:libraries-svr4:read, as gdbserver offers it).
// PCs outside the monitored image become the .ppe's object and object-hit records, as the
// collector writes them from /proc/self/maps.
#pragma once

#include "ppe/arc/elf_image.h"
#include "ppe/core/pc_table.h"
#include "ppe/core/ppe_writer.h"
#include "ppe/gdbremote/session.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe::arc {

struct Library {
    std::string name; // the path the target loaded
    uint64_t bias = 0; // l_addr: run-time address = link-time address + bias
};

// A <library-list-svr4> document; errors name `document` and the line.
Result<std::vector<Library>> parseLibraryList(std::string_view xml, const std::string& document);
// AT_ENTRY of an auxiliary vector of the given word size and byte order.
std::optional<uint64_t> auxvEntry(std::string_view auxv, bool is64, bool bigEndian);
// The value of entry `type` (AT_PHDR, AT_PHNUM, ...) of an auxiliary vector.
std::optional<uint64_t> auxvValue(std::string_view auxv, uint64_t type, bool is64, bool bigEndian);

// The load bias of `elf` in the target: 0 for a fixed-address executable, else from the target's
// auxiliary vector (an error when the server has none).
Result<uint64_t> readLoadBias(gdbremote::Session& session, const ElfImage& elf);
// The libraries the server lists; none when it offers no list.
Result<std::vector<Library>> readLibraries(gdbremote::Session& session);

// The samples of PCs outside the monitored image, by shared object and file offset.
struct ObjectSamples {
    std::vector<std::string> paths;
    std::vector<std::string> buildIds;
    std::vector<ObjectInfo> objects; // pointing into paths and buildIds
    std::vector<ObjectCountRecord> hits; // sorted by object, then offset
};

// Counts each PC of the table in `record`'s categories: shared (in a library whose ELF file can be
// read here) or unknown; the shared ones by object and offset.
ObjectSamples attributePcs(
    const PcSlot* pcs, size_t slots, const std::vector<Library>& libraries, ProfileRecord& record);

} // namespace ppe::arc
