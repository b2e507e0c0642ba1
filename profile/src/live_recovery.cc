#include "ppe/profile/live_recovery.h"

#include "ppe/core/live_file.h"
#include "ppe/core/ppe_writer.h"

#include <cstring>
#include <fstream>
#include <regex>
#include <sstream>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace ppe {

namespace {

    struct PcSlotView {
        uint64_t pc;
        uint64_t count;
    };

    std::string validate(const std::string& bytes, const LiveFileHeader& h)
    {
        if (bytes.size() < sizeof(LiveFileHeader) || std::memcmp(h.magic, kLiveMagic, sizeof(kLiveMagic)) != 0)
            return "not a ppe live profile";
        if (h.recordSize != sizeof(ProfileRecord))
            return "written by another version of libppe (record size " + std::to_string(h.recordSize) + ")";
        if (h.fileSize != bytes.size())
            return "truncated (" + std::to_string(bytes.size()) + " of " + std::to_string(h.fileSize) + " bytes)";
        if (h.recordOffset + sizeof(ProfileRecord) > h.binsOffset || h.binsOffset > h.pcsOffset
            || h.pcSlotSize != sizeof(PcSlotView) || h.pcsOffset + uint64_t(h.pcSlots) * h.pcSlotSize > h.fileSize)
            return "inconsistent layout";
        return "";
    }

    // The counters were live: make the totals agree with the bins and the table, as they would have
    // at a clean end.
    void settleCounts(ProfileRecord& r, const uint32_t* bins, const PcSlotView* pcs, uint32_t slots)
    {
        uint64_t binned = 0;
        for (uint64_t i = 0; i < r.layout.count; ++i)
            binned += bins[i];
        r.counts[kInRange] = binned + r.saturated;
        uint64_t outside = 0;
        for (uint32_t i = 0; i < slots; ++i)
            outside += pcs[i].count;
        r.counts[kShared] = r.counts[kVdso] = r.counts[kAnon] = 0;
        r.counts[kUnknown] = outside;
    }

} // namespace

std::string profilePathForLiveFile(const std::string& path)
{
    static const std::regex kLiveName(R"((.*)\.[0-9]+\.live)");
    std::smatch m;
    return std::regex_match(path, m, kLiveName) ? m[1].str() : "";
}

Result<std::string> recoverLiveFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        return Error { path, 0, "cannot open for reading" };
    std::ostringstream buffer;
    buffer << in.rdbuf();
    const std::string bytes = buffer.str();
    LiveFileHeader h {};
    std::memcpy(&h, bytes.data(), std::min(sizeof(h), bytes.size()));
    if (std::string problem = validate(bytes, h); !problem.empty())
        return Error { path, 0, problem };
    ProfileRecord record;
    std::memcpy(&record, bytes.data() + h.recordOffset, sizeof(record));
    if (h.binsOffset + record.layout.count * sizeof(uint32_t) > h.pcsOffset)
        return Error { path, 0, "inconsistent histogram size" };
    std::vector<uint32_t> bins(record.layout.count);
    std::memcpy(bins.data(), bytes.data() + h.binsOffset, bins.size() * sizeof(uint32_t));
    std::vector<PcSlotView> pcs(h.pcSlots);
    std::memcpy(pcs.data(), bytes.data() + h.pcsOffset, pcs.size() * sizeof(PcSlotView));
    settleCounts(record, bins.data(), pcs.data(), h.pcSlots);
    record.status = uint32_t(ProfileStatus::Recovered);
    std::strncpy(record.endReason, "killed", sizeof(record.endReason));
    record.endTime = h.lastSampleTime ? h.lastSampleTime : record.startTime;
    record.wallUs = uint64_t(std::max<int64_t>(0, record.endTime - record.startTime)) * 1'000'000;
    record.activeUs = record.wallUs;
    const int fd = memfd_create("ppe-recovered", 0);
    if (fd < 0)
        return Error { path, 0, "cannot create a memory file" };
    const ProfileOutput output { &record, bins.data(), nullptr, 0, nullptr, 0 };
    const int error = writeProfile(fd, output);
    std::string text(size_t(lseek(fd, 0, SEEK_END)), '\0');
    pread(fd, text.data(), text.size(), 0);
    close(fd);
    if (error)
        return Error { path, 0, std::string("cannot format: ") + std::strerror(error) };
    return text;
}

} // namespace ppe
