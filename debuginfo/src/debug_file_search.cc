#include "debug_file_search.h"

#include <llvm/Support/CRC.h>
#include <llvm/Support/Endian.h>
#include <llvm/Support/MemoryBuffer.h>

#include <climits>
#include <cstdlib>
#include <sys/stat.h>

namespace ppe::debuginfo {

namespace {

    std::string directoryOf(const std::string& path)
    {
        char resolved[PATH_MAX];
        const std::string real = realpath(path.c_str(), resolved) ? std::string(resolved) : path;
        const size_t slash = real.rfind('/');
        return slash == std::string::npos ? "." : real.substr(0, slash);
    }

    bool fileExists(const std::string& path)
    {
        struct stat st { };
        return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }

    bool crcMatches(const std::string& path, uint32_t crc)
    {
        auto buffer = llvm::MemoryBuffer::getFile(path);
        return buffer && llvm::crc32(llvm::arrayRefFromStringRef((*buffer)->getBuffer())) == crc;
    }

    // `candidate` when it is an ELF file with DWARF, the same build id (when both have one) and,
    // for a debuglink, the CRC asked for.
    std::optional<OpenedElf> accept(
        const std::string& candidate, const std::string& buildId, std::optional<uint32_t> crc)
    {
        if (!fileExists(candidate))
            return std::nullopt;
        auto opened = openElf(candidate);
        if (!opened || !hasDwarf(*opened->elf))
            return std::nullopt;
        const std::string id = buildIdOf(*opened->elf);
        if (!buildId.empty() && !id.empty() && id != buildId)
            return std::nullopt;
        if (crc && !crcMatches(candidate, *crc))
            return std::nullopt;
        return std::move(opened.value());
    }

    struct DebugLink {
        std::string name;
        uint32_t crc;
    };

    std::optional<DebugLink> debugLinkOf(const obj::ELFObjectFileBase& elf)
    {
        const std::optional<llvm::StringRef> link = sectionContents(elf, ".gnu_debuglink");
        if (!link)
            return std::nullopt;
        const size_t nameEnd = link->find('\0');
        const uint64_t crcAt = llvm::alignTo(nameEnd + 1, 4);
        if (nameEnd == llvm::StringRef::npos || nameEnd == 0 || crcAt + 4 > link->size())
            return std::nullopt;
        const auto endian = elf.isLittleEndian() ? llvm::support::little : llvm::support::big;
        return DebugLink { link->substr(0, nameEnd).str(),
            llvm::support::endian::read32(link->data() + crcAt, endian) };
    }

} // namespace

std::optional<OpenedElf> findDebugFile(const std::string& path, const obj::ELFObjectFileBase& elf,
    const std::string& buildId, const Options& options, std::string& found)
{
    std::vector<std::pair<std::string, std::optional<uint32_t>>> candidates;
    if (buildId.size() > 2) {
        for (const std::string& root : options.debugRoots)
            candidates.emplace_back(
                root + "/.build-id/" + buildId.substr(0, 2) + "/" + buildId.substr(2) + ".debug", std::nullopt);
    }
    if (const std::optional<DebugLink> link = debugLinkOf(elf)) {
        const std::string dir = directoryOf(path);
        candidates.emplace_back(dir + "/" + link->name, link->crc);
        candidates.emplace_back(dir + "/.debug/" + link->name, link->crc);
        for (const std::string& root : options.debugRoots)
            candidates.emplace_back(root + dir + "/" + link->name, link->crc);
    }
    for (const auto& [candidate, crc] : candidates) {
        if (candidate == path)
            continue;
        if (auto d = accept(candidate, buildId, crc)) {
            found = candidate;
            return d;
        }
    }
    return std::nullopt;
}

} // namespace ppe::debuginfo
