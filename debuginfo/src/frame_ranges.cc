#include "frame_ranges.h"

#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>
#include <llvm/Support/Endian.h>

#include <algorithm>

namespace ppe::debuginfo {

namespace {

    void sortByStart(std::vector<AddressRange>& ranges)
    {
        std::sort(ranges.begin(), ranges.end(),
            [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
    }

    std::vector<AddressRange> frameRangesOf(const obj::ELFObjectFileBase& elf, const obj::SectionRef& section)
    {
        std::vector<AddressRange> out;
        auto contents = section.getContents();
        if (!contents) {
            llvm::consumeError(contents.takeError());
            return out;
        }
        llvm::DWARFDebugFrame frames(elf.getArch(), true, section.getAddress());
        if (llvm::Error e = frames.parse(
                llvm::DWARFDataExtractor(*contents, elf.isLittleEndian(), uint8_t(elf.getBytesInAddress())))) {
            llvm::consumeError(std::move(e)); // the FDEs before the damage are kept
        }
        for (const llvm::dwarf::FrameEntry& entry : frames.entries()) {
            const auto* fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry);
            if (!fde || fde->getInitialLocation() == 0)
                continue;
            const AddressRange range { fde->getInitialLocation(), fde->getInitialLocation() + fde->getAddressRange() };
            if (range.end > range.start)
                out.push_back(range);
        }
        sortByStart(out);
        return out;
    }

    struct Section {
        llvm::StringRef bytes;
        uint64_t address = 0;
        bool found = false;
    };

    // The first section called `wanted`, its contents as stored.
    Section sectionNamed(const obj::ELFObjectFileBase& elf, llvm::StringRef wanted)
    {
        for (const obj::SectionRef& s : elf.sections()) {
            auto name = s.getName();
            if (!name) {
                llvm::consumeError(name.takeError());
                continue;
            }
            if (*name != wanted)
                continue;
            auto contents = s.getContents();
            if (!contents) {
                llvm::consumeError(contents.takeError());
                return {};
            }
            return Section { *contents, s.getAddress(), true };
        }
        return {};
    }

    // The 4-byte word at `offset` of `s`, if it is inside.
    std::optional<uint32_t> word(const Section& s, uint64_t offset, bool little)
    {
        if (offset > s.bytes.size() || s.bytes.size() - offset < 4)
            return std::nullopt;
        return llvm::support::endian::read32(
            s.bytes.data() + offset, little ? llvm::support::little : llvm::support::big);
    }

    // .eh_frame_hdr (LSB: version 1; the encodings of eh_frame_ptr, fde_count and the table; those
    // two values; then fde_count (initial location, FDE address) pairs sorted by location), its
    // values made addresses. Only the table's bounds are trusted: each FDE is checked when read.
    class SearchTable {
    public:
        // False when this cannot search it: another version, a variable-size or indirect encoding,
        // eh_frame_ptr not `ehFrame`, or a table past the section's end.
        bool open(const Section& hdr, const obj::ELFObjectFileBase& elf, uint64_t ehFrame)
        {
            m_hdr = hdr;
            m_data = llvm::DWARFDataExtractor(hdr.bytes, elf.isLittleEndian(), uint8_t(elf.getBytesInAddress()));
            if (hdr.bytes.size() < 4 || hdr.bytes[0] != 1)
                return false;
            m_encoding = uint8_t(hdr.bytes[3]);
            uint64_t offset = 4;
            const std::optional<uint64_t> framePtr = value(offset, uint8_t(hdr.bytes[1]));
            const std::optional<uint64_t> count = value(offset, uint8_t(hdr.bytes[2]));
            m_start = offset;
            m_entry = entrySize(m_encoding, m_data.getAddressSize());
            if (!framePtr || *framePtr != ehFrame || !count || m_entry == 0 || offset > hdr.bytes.size())
                return false;
            m_count = *count;
            return m_count <= (hdr.bytes.size() - offset) / (2 * m_entry) && sorted();
        }
        uint64_t size() const { return m_count; }
        uint64_t location(uint64_t i) const { return at(m_start + i * 2 * m_entry); }
        uint64_t fde(uint64_t i) const { return at(m_start + i * 2 * m_entry + m_entry); }

    private:
        static uint64_t entrySize(uint8_t encoding, uint8_t addressSize)
        {
            switch (encoding & 0x0f) {
            case llvm::dwarf::DW_EH_PE_absptr:
                return addressSize;
            case llvm::dwarf::DW_EH_PE_udata2:
            case llvm::dwarf::DW_EH_PE_sdata2:
                return 2;
            case llvm::dwarf::DW_EH_PE_udata4:
            case llvm::dwarf::DW_EH_PE_sdata4:
                return 4;
            case llvm::dwarf::DW_EH_PE_udata8:
            case llvm::dwarf::DW_EH_PE_sdata8:
                return 8;
            default:
                return 0; // LEB128: no binary search
            }
        }
        // The value at `offset` (advanced past it) in `encoding`: its format read by LLVM, then
        // made absolute here (LLVM's reader knows pc-relative values, not the table's datarel).
        std::optional<uint64_t> value(uint64_t& offset, uint8_t encoding) const
        {
            const uint64_t field = offset;
            const llvm::Optional<uint64_t> v = m_data.getEncodedPointer(&offset, encoding & 0x0f, 0);
            if (!v || offset > m_hdr.bytes.size())
                return std::nullopt;
            switch (encoding & 0xf0) {
            case llvm::dwarf::DW_EH_PE_absptr:
                return *v;
            case llvm::dwarf::DW_EH_PE_pcrel:
                return *v + m_hdr.address + field;
            case llvm::dwarf::DW_EH_PE_datarel:
                return *v + m_hdr.address;
            default:
                return std::nullopt;
            }
        }
        uint64_t at(uint64_t offset) const { return value(offset, m_encoding).value_or(0); }
        // A damaged table out of order would hide FDEs from the search (a millisecond for libLLVM's).
        bool sorted() const
        {
            for (uint64_t i = 1; i < m_count; ++i) {
                if (location(i) < location(i - 1))
                    return false;
            }
            return true;
        }

        Section m_hdr;
        llvm::DWARFDataExtractor m_data { llvm::StringRef(), true, 8 };
        uint8_t m_encoding = 0;
        uint64_t m_start = 0, m_entry = 0, m_count = 0;
    };

    // The table's entries for `wanted`: the last that begins at or before each range's start
    // (its FDE may hold it) and those that begin inside the range; ascending, once each.
    std::vector<uint64_t> entriesFor(const SearchTable& table, const std::vector<AddressRange>& wanted)
    {
        std::vector<uint64_t> out;
        for (const AddressRange& w : wanted) {
            uint64_t low = 0, high = table.size(); // to the first entry beginning after w.start
            while (low < high) {
                const uint64_t mid = low + (high - low) / 2;
                (table.location(mid) <= w.start ? low = mid + 1 : high = mid);
            }
            for (uint64_t i = low ? low - 1 : 0; i < table.size() && (i < low || table.location(i) < w.end); ++i) {
                if (out.empty() || out.back() < i)
                    out.push_back(i);
            }
        }
        return out;
    }

    // The code range of the FDE at `offset` of .eh_frame, parsed by LLVM from a copy of its CIE
    // followed by it (its CIE pointer rewritten to the copy's CIE, and the copy placed at the
    // address that keeps its pc-relative initial location right); nullopt when it is damaged.
    std::optional<AddressRange> readFde(
        const obj::ELFObjectFileBase& elf, const Section& frames, uint64_t offset, std::string& copy)
    {
        const bool little = elf.isLittleEndian();
        const std::optional<uint32_t> length = word(frames, offset, little);
        const std::optional<uint32_t> pointer = word(frames, offset + 4, little);
        if (!length || !pointer || *length < 4 || *length == UINT32_MAX || *pointer == 0 || *pointer > offset + 4
            || frames.bytes.size() - offset - 4 < *length)
            return std::nullopt;
        const uint64_t cie = offset + 4 - *pointer;
        const std::optional<uint32_t> cieLength = word(frames, cie, little);
        if (!cieLength || *cieLength < 4 || *cieLength == UINT32_MAX || cie + 4 + uint64_t(*cieLength) > offset
            || word(frames, cie + 4, little) != 0u) // a CIE, before the FDE
            return std::nullopt;
        const uint64_t cieSize = 4 + uint64_t(*cieLength);
        copy.assign(frames.bytes.data() + cie, cieSize).append(frames.bytes.data() + offset, 4 + uint64_t(*length));
        llvm::support::endian::write32(
            &copy[cieSize + 4], uint32_t(cieSize + 4), little ? llvm::support::little : llvm::support::big);
        llvm::DWARFDebugFrame parsed(elf.getArch(), true, frames.address + offset - cieSize);
        if (llvm::Error e = parsed.parse(llvm::DWARFDataExtractor(copy, little, uint8_t(elf.getBytesInAddress())))) {
            llvm::consumeError(std::move(e));
            return std::nullopt;
        }
        for (const llvm::dwarf::FrameEntry& entry : parsed.entries()) {
            if (const auto* fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry))
                return AddressRange { fde->getInitialLocation(), fde->getInitialLocation() + fde->getAddressRange() };
        }
        return std::nullopt;
    }

} // namespace

// The .eh_frame section alone (a DWARFContext would decompress every debug section first).
std::vector<AddressRange> frameRanges(const obj::ELFObjectFileBase& elf)
{
    std::vector<AddressRange> out;
    for (const obj::SectionRef& s : elf.sections()) {
        auto name = s.getName();
        if (name && *name == ".eh_frame")
            return frameRangesOf(elf, s);
        llvm::consumeError(name.takeError());
    }
    return out;
}

std::optional<std::vector<AddressRange>> frameRangesAt(
    const obj::ELFObjectFileBase& elf, const std::vector<AddressRange>& wanted)
{
    const Section frames = sectionNamed(elf, ".eh_frame");
    SearchTable table;
    if (!frames.found || !table.open(sectionNamed(elf, ".eh_frame_hdr"), elf, frames.address))
        return std::nullopt;
    std::vector<AddressRange> out;
    std::string copy;
    for (uint64_t i : entriesFor(table, wanted)) {
        const uint64_t fde = table.fde(i);
        if (fde < frames.address || fde - frames.address >= frames.bytes.size())
            return std::nullopt;
        const std::optional<AddressRange> range = readFde(elf, frames, fde - frames.address, copy);
        if (!range || range->start != table.location(i))
            return std::nullopt;
        if (range->start != 0 && range->end > range->start) // as frameRangesOf keeps them
            out.push_back(*range);
    }
    sortByStart(out);
    return out;
}

} // namespace ppe::debuginfo
