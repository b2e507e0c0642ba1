#include "ppe/core/live_file.h"

#include <cstring>

namespace ppe {

namespace {

    uint64_t roundUp(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

    // [offset, offset + bytes) lies within `limit` bytes. Written so that no sum wraps: a damaged
    // file's offsets come near 2^64, and a wrapped end would pass for one inside the file.
    bool within(uint64_t offset, uint64_t bytes, uint64_t limit) { return offset <= limit && bytes <= limit - offset; }

    LiveFileProblem checkHeader(const LiveFileHeader& h, uint64_t size)
    {
        if (std::memcmp(h.magic, kLiveMagic, sizeof(kLiveMagic)) != 0)
            return LiveFileProblem::NotLive;
        if (h.recordSize != sizeof(ProfileRecord))
            return LiveFileProblem::OtherVersion;
        if (h.fileSize != size)
            return LiveFileProblem::Truncated;
        const uint64_t pcsBytes = uint64_t(h.pcSlots) * sizeof(PcSlot);
        if (!within(h.recordOffset, sizeof(ProfileRecord), h.binsOffset) || h.binsOffset > h.pcsOffset
            || h.pcSlotSize != sizeof(PcSlot) || !within(h.pcsOffset, pcsBytes, h.fileSize) || h.recordOffset % 8
            || h.binsOffset % 8 || h.pcsOffset % 8)
            return LiveFileProblem::Inconsistent;
        if (h.mapsSize != sizeof(LiveMappings) || h.mapsOffset % 8 || h.mapsOffset < h.pcsOffset + pcsBytes
            || !within(h.mapsOffset, 2 * uint64_t(h.mapsSize), h.fileSize))
            return LiveFileProblem::Inconsistent;
        return LiveFileProblem::None;
    }

} // namespace

LiveFileLayout planLiveFile(uint64_t headSize, uint64_t binCount, uint64_t pageSize, uint32_t callNodes)
{
    LiveFileLayout l;
    l.headSize = headSize;
    l.recordOffset = roundUp(headSize, 64);
    l.binsOffset = roundUp(l.recordOffset + sizeof(ProfileRecord), pageSize);
    l.pcsOffset = l.binsOffset + roundUp(binCount * sizeof(uint32_t), 64);
    l.mapsOffset = roundUp(l.pcsOffset + sizeof(PcSlot) * uint64_t(kPcTableSlots), 64);
    l.threadsOffset = roundUp(l.mapsOffset + 2 * sizeof(LiveMappings), 64);
    l.callsOffset = roundUp(l.threadsOffset + 2 * sizeof(LiveThreads), pageSize);
    l.callNodes = callNodes;
    l.fileSize = roundUp(l.callsOffset + (callNodes ? callTreeBytes(callNodes) : 0), pageSize);
    return l;
}

void writeLiveHeader(LiveFileHeader& h, const LiveFileLayout& layout)
{
    std::memcpy(h.magic, kLiveMagic, sizeof(kLiveMagic));
    h.headerSize = uint32_t(layout.headSize);
    h.recordSize = sizeof(ProfileRecord);
    h.recordOffset = layout.recordOffset;
    h.binsOffset = layout.binsOffset;
    h.pcsOffset = layout.pcsOffset;
    h.pcSlots = kPcTableSlots;
    h.pcSlotSize = sizeof(PcSlot);
    h.fileSize = layout.fileSize;
    h.mapsOffset = layout.mapsOffset;
    h.mapsSize = sizeof(LiveMappings);
    h.mapsCurrent = kLiveNone;
    h.usageCurrent = kLiveNone;
    h.threads = kLiveThreadsMark | kLiveNone;
    h.callsMark = layout.callNodes ? kLiveCallsMark : 0;
    h.callsOffset = layout.callNodes ? layout.callsOffset : 0;
    h.callNodes = layout.callNodes;
}

LiveThreads* liveThreads(char* base, const LiveFileHeader& header, uint32_t copy)
{
    const uint64_t offset = roundUp(header.mapsOffset + 2 * uint64_t(header.mapsSize), 64);
    if (!(header.threads & kLiveThreadsMark) || !within(offset, 2 * sizeof(LiveThreads), header.fileSize))
        return nullptr;
    return reinterpret_cast<LiveThreads*>(base + offset + uint64_t(copy) * sizeof(LiveThreads));
}

LiveMappings* liveMappings(char* base, const LiveFileHeader& header, uint32_t copy)
{
    return reinterpret_cast<LiveMappings*>(base + header.mapsOffset + uint64_t(copy) * header.mapsSize);
}

LiveFileProblem readLiveFile(const char* bytes, uint64_t size, LiveFileView* view)
{
    if (size < sizeof(LiveFileHeader))
        return LiveFileProblem::NotLive;
    std::memcpy(&view->header, bytes, sizeof(LiveFileHeader));
    const LiveFileHeader& h = view->header;
    if (const LiveFileProblem problem = checkHeader(h, size); problem != LiveFileProblem::None)
        return problem;
    view->record = reinterpret_cast<const ProfileRecord*>(bytes + h.recordOffset);
    if (view->record->layout.count > (h.pcsOffset - h.binsOffset) / sizeof(uint32_t))
        return LiveFileProblem::BinsOverflow;
    view->bins = reinterpret_cast<const uint32_t*>(bytes + h.binsOffset);
    view->pcs = reinterpret_cast<const PcSlot*>(bytes + h.pcsOffset);
    if (h.mapsCurrent < 2)
        view->mappings = liveMappings(const_cast<char*>(bytes), h, h.mapsCurrent);
    if (h.usageCurrent < 2)
        view->usage = &reinterpret_cast<const LiveFileHeader*>(bytes)->usage[h.usageCurrent];
    if (const uint32_t threads = h.threads & ~kLiveThreadsMark; threads < 2)
        view->threads = liveThreads(const_cast<char*>(bytes), h, threads);
    if (h.callsMark == kLiveCallsMark && h.callNodes >= 2 && h.callNodes <= kMaxCallNodes && h.callsOffset % 8 == 0
        && within(h.callsOffset, callTreeBytes(h.callNodes), h.fileSize))
        view->calls = readCallTree(const_cast<char*>(bytes) + h.callsOffset, h.callNodes);
    return LiveFileProblem::None;
}

} // namespace ppe
