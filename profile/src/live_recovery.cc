#include "ppe/profile/live_recovery.h"

#include "ppe/core/histogram.h"
#include "ppe/core/live_file.h"
#include "ppe/core/ppe_writer.h"

#include <cctype>
#include <cstring>
#include <fstream>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

namespace ppe {

namespace {

    std::string describe(LiveFileProblem problem, const LiveFileView& view, uint64_t size)
    {
        const LiveFileHeader& h = view.header;
        switch (problem) {
        case LiveFileProblem::None:
            return "";
        case LiveFileProblem::NotLive:
            return "not a ppe live profile";
        case LiveFileProblem::OtherVersion:
            return "written by another version of libppe (record size " + std::to_string(h.recordSize) + ")";
        case LiveFileProblem::Truncated:
            return "truncated (" + std::to_string(size) + " of " + std::to_string(h.fileSize) + " bytes)";
        case LiveFileProblem::Inconsistent:
            return "inconsistent layout";
        case LiveFileProblem::BinsOverflow:
            return "inconsistent histogram size";
        }
        return "unreadable";
    }

    // The whole file in 8-byte aligned memory.
    bool readWhole(const std::string& path, std::vector<uint64_t>* words, uint64_t* size)
    {
        std::ifstream in(path, std::ios::binary | std::ios::ate);
        if (!in)
            return false;
        *size = uint64_t(in.tellg());
        words->assign((*size + 7) / 8, 0);
        in.seekg(0);
        in.read(reinterpret_cast<char*>(words->data()), std::streamsize(*size));
        return bool(in);
    }

} // namespace

std::string profilePathForLiveFile(const std::string& path)
{
    const std::string suffix = ".live";
    if (path.size() <= suffix.size() || path.compare(path.size() - suffix.size(), suffix.size(), suffix) != 0)
        return "";
    const size_t digitsEnd = path.size() - suffix.size();
    size_t digitsStart = digitsEnd;
    while (digitsStart > 0 && std::isdigit(static_cast<unsigned char>(path[digitsStart - 1])))
        --digitsStart;
    if (digitsStart == digitsEnd || digitsStart < 2 || path[digitsStart - 1] != '.')
        return "";
    return path.substr(0, digitsStart - 1);
}

Result<std::string> recoverLiveFile(const std::string& path)
{
    std::vector<uint64_t> words;
    uint64_t size = 0;
    if (!readWhole(path, &words, &size))
        return Error { path, 0, "cannot open for reading" };
    LiveFileView view;
    const LiveFileProblem problem = readLiveFile(reinterpret_cast<const char*>(words.data()), size, &view);
    if (problem != LiveFileProblem::None)
        return Error { path, 0, describe(problem, view, size) };
    ProfileRecord record;
    std::memcpy(&record, view.record, sizeof(record));
    settleCounts(record, view.bins, view.pcs, view.header.pcSlots);
    record.status = uint32_t(ProfileStatus::Recovered);
    std::strncpy(record.endReason, "killed", sizeof(record.endReason));
    const int64_t last = view.header.lastSampleTime;
    record.endTime = last ? last : record.startTime;
    record.wallUs = uint64_t(std::max<int64_t>(0, record.endTime - record.startTime)) * 1'000'000;
    record.activeUs = record.wallUs;
    const int fd = memfd_create("ppe-recovered", 0);
    if (fd < 0)
        return Error { path, 0, "cannot create a memory file" };
    const ProfileOutput output { &record, view.bins, nullptr, 0, nullptr, 0 };
    const int error = writeProfile(fd, output);
    std::string text(size_t(lseek(fd, 0, SEEK_END)), '\0');
    pread(fd, text.data(), text.size(), 0);
    close(fd);
    if (error)
        return Error { path, 0, std::string("cannot format: ") + std::strerror(error) };
    return text;
}

} // namespace ppe
