#include "ppe/profile/live_recovery.h"

#include "ppe/core/civil_time.h"
#include "ppe/core/histogram.h"
#include "ppe/core/limits.h"
#include "ppe/core/live_file.h"
#include "ppe/core/ppe_writer.h"
#include "ppe/profile/input_file.h"
#include "ppe/profile/profile_reader.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
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

    // The largest live file the collector makes: the largest histogram, the PC table and the rest.
    constexpr uint64_t kMaxLiveFileBytes = kMaxPages * 512 + (uint64_t(64) << 20);

    // The whole live file in 8-byte aligned memory, read only once its header says it is one, of
    // the size it has: a FIFO, a device or any other file costs nothing but that check.
    Result<uint64_t> readWhole(const std::string& path, std::vector<uint64_t>* words, uint64_t* fileSize)
    {
        auto file = InputFile::open(path, InputOrigin::Named);
        if (!file)
            return file.error();
        if (!file->regular())
            return Error { path, 0, "not a regular file: a live file is the regular file the collector maps" };
        const uint64_t size = *fileSize = file->size();
        if (size > kMaxLiveFileBytes)
            return Error { path, 0,
                "not a ppe live profile (" + std::to_string(size) + " bytes: the limit is "
                    + std::to_string(kMaxLiveFileBytes) + ")" };
        const uint64_t head = std::min<uint64_t>(size, sizeof(LiveFileHeader));
        words->assign((head + 7) / 8, 0);
        uint64_t got = 0;
        while (got < size) {
            if (got == sizeof(LiveFileHeader) && words->size() * 8 < size) {
                LiveFileHeader h;
                std::memcpy(&h, words->data(), sizeof(h));
                if (std::memcmp(h.magic, kLiveMagic, sizeof(kLiveMagic)) != 0 || h.fileSize != size)
                    return got; // readLiveFile says what is wrong
                words->resize((size + 7) / 8);
            }
            const uint64_t want = got < head ? head : size;
            auto n = file->read(reinterpret_cast<char*>(words->data()) + got, want - got);
            if (!n)
                return n.error();
            if (*n == 0)
                break;
            got += *n;
        }
        return got;
    }

    // The mappings the collector thread kept, checked: counts and path offsets within their arrays.
    std::unique_ptr<LiveMappings> checkedMappings(const LiveMappings* kept)
    {
        if (!kept)
            return nullptr;
        auto copy = std::make_unique<LiveMappings>(*kept);
        if (copy->count > kLiveMaxMappings || copy->pathUsed > kLiveMapPaths || copy->pathUsed == 0)
            return nullptr;
        copy->paths[kLiveMapPaths - 1] = '\0';
        for (uint32_t i = 0; i < copy->count; ++i) {
            const LiveMapping& m = copy->mappings[i];
            if (m.path >= copy->pathUsed || m.buildIdSize > kMaxBuildId || m.end <= m.start
                || (i && m.start < copy->mappings[i - 1].end))
                return nullptr;
        }
        return copy;
    }

    std::string utcText(int64_t seconds)
    {
        const CivilTime t = civilFromUnix(seconds);
        char text[40];
        std::snprintf(text, sizeof(text), "%04lld-%02u-%02uT%02u:%02u:%02uZ", static_cast<long long>(t.year), t.month,
            t.day, t.hour, t.minute, t.second);
        return text;
    }

    // Below this many samples in the collector's last record, the rate until then says little (the
    // first record is taken as sampling starts, with none).
    constexpr uint64_t kRateSamples = 50;

    // `us` as a count of microseconds; a damaged usage record's rate can exceed what one holds.
    uint64_t asUs(double us) { return us < 1.8e19 ? uint64_t(us) : uint64_t(1.8e19); }

    // The active time up to the last sample, `after` ns past the collector's last record `u`. The
    // CPU time after the record: at the rate until then; when the record holds too few samples to
    // tell a rate (a process killed in its first half second, issue 34), at the asked rate for the
    // perf mechanisms (which take it, over user time), else as wall time while sampling ran.
    uint64_t recoveredActiveUs(const ProfileRecord& record, const LiveUsage& u, uint64_t after, uint64_t total)
    {
        const uint64_t running = u.running ? after : 0;
        const Mechanism mechanism = parseMechanism(record.mechanism);
        if (countsTimerTicks(mechanism))
            return (u.activeNs + running) / 1000;
        if (total <= u.samples)
            return u.activeNs / 1000;
        if (u.samples >= kRateSamples)
            return asUs(double(u.activeNs) / 1000.0 * double(total) / double(u.samples));
        if (samplesUserTimeOnly(mechanism) && record.interval)
            return (u.activeNs + (total - u.samples) * record.interval * 100) / 1000;
        return (u.activeNs + running) / 1000;
    }

    // Times up to the last thing known of the process: its last sample or the collector thread's
    // last record, in ns; the CPU time of that record (said as of when).
    void settleTimes(ProfileRecord& record, const LiveFileView& view, std::vector<std::string>* notes)
    {
        uint64_t total = totalSamples(record); // and the PC table's, which the reader attributes
        for (uint32_t i = 0; i < view.header.pcSlots; ++i)
            total += view.pcs[i].count;
        const LiveFileHeader& h = view.header;
        const LiveUsage* u = view.usage;
        if (!u) { // the collector thread never ran: whole seconds from the start
            record.endTime = h.lastSampleNs ? h.lastSampleNs / 1'000'000'000 : record.startTime;
            record.wallUs = uint64_t(std::max<int64_t>(0, record.endTime - record.startTime)) * 1'000'000;
            record.activeUs = record.wallUs;
            return;
        }
        const int64_t endNs = std::max(h.lastSampleNs, u->takenNs);
        // Unsigned: a damaged file's times may lie anywhere, and their difference overflow int64_t.
        const uint64_t after = uint64_t(endNs) - uint64_t(u->takenNs);
        record.endTime = endNs / 1'000'000'000;
        record.wallUs = (u->wallNs + after) / 1000;
        record.activeUs = recoveredActiveUs(record, *u, after, total);
        record.cpuUserUs = u->cpuUserUs;
        record.cpuSystemUs = u->cpuSystemUs;
        record.cpuTimeAsOf = u->takenNs / 1'000'000'000;
        if (notes)
            notes->push_back("CPU time as of " + utcText(record.cpuTimeAsOf) + " (the collector's last record, "
                + std::to_string(after / 1'000'000) + " ms before the last sample)");
    }

    // Field 22 of /proc/PID/stat (the start time in clock ticks after boot); 0 if it cannot be read
    // or the process has ended: a zombie (state Z, or X) keeps its /proc entry until its parent
    // reaps it, so a rank that mpirun has just killed, or a process killed in the background of a
    // shell that has not waited yet, would otherwise pass for one still running.
    uint64_t startTicksOf(uint64_t pid)
    {
        std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        const size_t paren = text.rfind(')');
        if (paren == std::string::npos)
            return 0;
        std::istringstream fields(text.substr(paren + 2));
        std::string field;
        for (int i = 3; i <= 22 && fields >> field; ++i) {
            if (i == 3 && (field == "Z" || field == "X"))
                return 0;
            if (i == 22)
                return std::strtoull(field.c_str(), nullptr, 10);
        }
        return 0;
    }

    // The process that wrote the live file still runs: the same pid, start time and boot.
    bool ownerStillRuns(const LiveFileHeader& h, uint64_t pid)
    {
        if (!h.startTicks || !pid || startTicksOf(pid) != h.startTicks)
            return false;
        std::ifstream in("/proc/sys/kernel/random/boot_id");
        std::string boot;
        std::getline(in, boot);
        return boot == std::string(h.bootId, strnlen(h.bootId, sizeof(h.bootId)));
    }

    template <size_t N> void terminate(char (&text)[N]) { text[N - 1] = '\0'; }

    // The record as the writer may take it, or why it cannot be: the collector writes it for itself
    // and trusts its sizes and strings, but a dead process's memory may be damaged anywhere.
    std::string checkRecord(ProfileRecord& r)
    {
        if (r.buildIdSize > kMaxBuildId)
            return "a build id of " + std::to_string(r.buildIdSize) + " bytes";
        terminate(r.producer);
        terminate(r.host);
        terminate(r.cpu);
        terminate(r.arch);
        terminate(r.os);
        terminate(r.image);
        terminate(r.mechanism);
        terminate(r.endReason);
        return "";
    }

    // The samples outside the monitored object are written raw, with the mappings kept (none when the
    // collector thread never ran: the reader then counts them unknown), for the reader to attribute
    // as it does a collector's (outside_samples.h).
    std::string formatRecovered(const ProfileRecord& record, const LiveFileView& view, const LiveMappings* maps)
    {
        const int fd = memfd_create("ppe-recovered", 0);
        if (fd < 0)
            return "";
        // The threads as the collector thread last listed them (issue 34), when the file has them.
        const ThreadRecord* threads = view.threads ? view.threads->threads : nullptr;
        const size_t threadCount = view.threads ? std::min<size_t>(view.threads->count, kLiveThreads) : 0;
        const RawOutside raw { maps, view.pcs, view.header.pcSlots };
        // The call tree as the killed process left it (issue 39), when the file has one.
        const ProfileOutput output { &record, view.bins, nullptr, 0, nullptr, 0, threads, threadCount, nullptr, 0,
            nullptr, &raw, view.calls };
        const int error = writeProfile(fd, output);
        std::string text(size_t(lseek(fd, 0, SEEK_END)), '\0');
        if (pread(fd, text.data(), text.size(), 0) != ssize_t(text.size()) || error)
            text.clear();
        close(fd);
        return text;
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

Result<std::string> recoverLiveFile(const std::string& path, std::vector<std::string>* notes)
{
    std::vector<uint64_t> words;
    uint64_t size = 0;
    const Result<uint64_t> read = readWhole(path, &words, &size);
    if (!read)
        return read.error();
    LiveFileView view;
    const LiveFileProblem problem = readLiveFile(reinterpret_cast<const char*>(words.data()), *read, &view);
    if (problem != LiveFileProblem::None)
        return Error { path, 0, describe(problem, view, size) };
    ProfileRecord record;
    std::memcpy(&record, view.record, sizeof(record));
    if (const std::string damage = checkRecord(record); !damage.empty())
        return Error { path, 0, "damaged profile record (" + damage + ")" };
    const std::unique_ptr<LiveMappings> maps = checkedMappings(view.mappings);
    settleCounts(record, view.bins, view.pcs, 0);
    settleTimes(record, view, notes);
    const bool running = ownerStillRuns(view.header, record.pid);
    record.status = uint32_t(running ? ProfileStatus::Checkpoint : ProfileStatus::Recovered);
    std::strncpy(record.endReason, running ? "still running" : "killed", sizeof(record.endReason));
    if (running && notes)
        notes->insert(notes->begin(),
            "process " + std::to_string(record.pid) + " is still running: a snapshot of its profile so far");
    std::string text = formatRecovered(record, view, maps.get());
    if (text.empty())
        return Error { path, 0, "cannot format the recovered profile" };
    // The record is the dead process's memory, as likely damaged as the rest: what the reader
    // refuses is refused here, saying what is wrong, not written out (ppe --recover) for a later
    // error naming a line of a text the user never saw.
    if (auto readable = parseProfile(text, path); !readable)
        return Error { path, 0, "damaged profile record (" + readable.error().message + ")" };
    return text;
}

} // namespace ppe
