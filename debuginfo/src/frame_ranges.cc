#include "frame_ranges.h"

#include <llvm/DebugInfo/DWARF/DWARFContext.h>
#include <llvm/DebugInfo/DWARF/DWARFDebugFrame.h>

#include <algorithm>

namespace ppe::debuginfo {

std::vector<AddressRange> frameRanges(const obj::ELFObjectFileBase& elf)
{
    std::vector<AddressRange> out;
    if (!sectionContents(elf, ".eh_frame"))
        return out;
    auto ignore = [](llvm::Error e) { llvm::consumeError(std::move(e)); };
    auto ctx = llvm::DWARFContext::create(
        elf, llvm::DWARFContext::ProcessDebugRelocations::Ignore, nullptr, "", ignore, ignore);
    auto frames = ctx->getEHFrame();
    if (!frames) {
        llvm::consumeError(frames.takeError());
        return out;
    }
    for (const llvm::dwarf::FrameEntry& entry : (*frames)->entries()) {
        const auto* fde = llvm::dyn_cast<llvm::dwarf::FDE>(&entry);
        if (!fde || fde->getInitialLocation() == 0)
            continue;
        const AddressRange range { fde->getInitialLocation(), fde->getInitialLocation() + fde->getAddressRange() };
        if (range.end > range.start)
            out.push_back(range);
    }
    std::sort(out.begin(), out.end(), [](const AddressRange& a, const AddressRange& b) { return a.start < b.start; });
    return out;
}

} // namespace ppe::debuginfo
