#include "ppe/arc/libraries.h"

#include "ppe/gdbremote/hex.h"
#include "ppe/gdbremote/xml.h"

#include <algorithm>
#include <elf.h>
#include <map>

namespace ppe::arc {

Result<std::vector<Library>> parseLibraryList(std::string_view xml, const std::string& document)
{
    auto root = gdbremote::parseXml(xml, document);
    if (!root)
        return root.error();
    if (root->name != "library-list-svr4")
        return Error { document, root->line, "not a library-list-svr4 document but <" + root->name + ">" };
    std::vector<Library> out;
    for (const gdbremote::XmlElement& e : root->children) {
        if (e.name != "library")
            continue;
        const std::string* name = e.attribute("name");
        const std::string* lAddr = e.attribute("l_addr");
        auto bias = lAddr && lAddr->rfind("0x", 0) == 0 ? gdbremote::parseHexNumber(lAddr->substr(2)) : std::nullopt;
        if (!name || !bias)
            return Error { document, e.line, "a <library> without name or l_addr" };
        out.push_back(Library { *name, *bias });
    }
    return out;
}

std::optional<uint64_t> auxvEntry(std::string_view auxv, bool is64, bool bigEndian)
{
    return auxvValue(auxv, AT_ENTRY, is64, bigEndian);
}

std::optional<uint64_t> auxvValue(std::string_view auxv, uint64_t wanted, bool is64, bool bigEndian)
{
    const size_t word = is64 ? 8 : 4;
    auto at = [&](size_t offset) {
        std::string_view bytes = auxv.substr(offset, word);
        return gdbremote::registerValue(bytes, bigEndian).value_or(0);
    };
    for (size_t offset = 0; offset + 2 * word <= auxv.size(); offset += 2 * word) {
        const uint64_t type = at(offset);
        if (type == AT_NULL)
            break;
        if (type == wanted)
            return at(offset + word);
    }
    return std::nullopt;
}

Result<uint64_t> readLoadBias(gdbremote::Session& session, const ElfImage& elf)
{
    if (!elf.shared)
        return uint64_t(0);
    const std::string why = elf.path + " is position-independent and ";
    if (!session.features().auxvRead)
        return Error { session.peer(), 0, why + "the server cannot read the auxiliary vector (qXfer:auxv:read)" };
    auto auxv = session.readXfer("auxv", "");
    if (!auxv)
        return auxv.error();
    auto entry = auxvEntry(*auxv, elf.is64, elf.bigEndian);
    if (!entry)
        return Error { session.peer(), 0, why + "the auxiliary vector has no AT_ENTRY" };
    return *entry - elf.entry;
}

Result<std::vector<Library>> readLibraries(gdbremote::Session& session)
{
    if (!session.features().librariesSvr4)
        return std::vector<Library> {};
    auto xml = session.readXfer("libraries-svr4", "");
    if (!xml)
        return xml.error();
    return parseLibraryList(*xml, session.peer() + " libraries-svr4");
}

namespace {

    struct Loaded {
        const Library* library;
        std::optional<ElfImage> elf; // none when its file cannot be read here
    };

    // The library whose segments hold run-time `pc`, and the file offset there.
    const Loaded* holder(const std::vector<Loaded>& loaded, uint64_t pc, uint64_t& offset)
    {
        for (const Loaded& l : loaded) {
            if (l.elf && pc >= l.library->bias && l.elf->fileOffsetOf(pc - l.library->bias, offset))
                return &l;
        }
        return nullptr;
    }
} // namespace

ObjectSamples attributePcs(
    const PcSlot* pcs, size_t slots, const std::vector<Library>& libraries, ProfileRecord& record)
{
    std::vector<Loaded> loaded;
    for (const Library& l : libraries) {
        auto elf = readElfImage(l.name);
        loaded.push_back(Loaded { &l, elf ? std::optional<ElfImage>(std::move(*elf)) : std::nullopt });
    }
    std::map<const Loaded*, std::map<uint64_t, uint64_t>> byObject;
    for (size_t i = 0; i < slots; ++i) {
        if (!pcs[i].count)
            continue;
        uint64_t offset = 0;
        const Loaded* l = holder(loaded, pcs[i].pc, offset);
        if (l)
            byObject[l][offset] += pcs[i].count;
        // The vDSO has no file to place it by: its samples are unknown, as are those of code no
        // library holds.
        record.counts[l ? kShared : kUnknown] += pcs[i].count;
    }
    ObjectSamples out;
    out.paths.reserve(byObject.size());
    out.buildIds.reserve(byObject.size());
    for (const auto& [l, hits] : byObject) {
        const uint32_t id = uint32_t(out.objects.size());
        out.paths.push_back(l->library->name);
        out.buildIds.push_back(l->elf->buildId);
        ObjectInfo info { out.paths.back().c_str(), 0, reinterpret_cast<const uint8_t*>(out.buildIds.back().data()),
            uint32_t(out.buildIds.back().size()) };
        for (const auto& [offset, count] : hits) {
            info.hits += count;
            out.hits.push_back(ObjectCountRecord { id, offset, count });
        }
        out.objects.push_back(info);
    }
    return out;
}

} // namespace ppe::arc
