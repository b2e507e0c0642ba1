#include "frame_ranges.h"

#include <llvm/DebugInfo/DWARF/DWARFDataExtractor.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>

#include <algorithm>

namespace ppe::debuginfo {

namespace {

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
        std::sort(
            out.begin(), out.end(), [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
        return out;
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

} // namespace ppe::debuginfo
