#include "ppe/arc/remote_profile.h"

#include "ppe/core/line_writer.h"
#include "ppe/core/ppe_writer.h"

#include <cmath>
#include <cstring>
#include <ctime>
#include <functional>
#include <sys/mman.h>
#include <unistd.h>

namespace ppe::arc {

namespace {

    void copy(char* out, size_t size, const std::string& text)
    {
        std::strncpy(out, text.c_str(), size - 1);
        out[size - 1] = '\0';
    }

    // What `write(fd)` writes, through an anonymous file: core's writers write to descriptors.
    std::string captured(const std::function<bool(int)>& write)
    {
        const int fd = ::memfd_create("ppe-arc", MFD_CLOEXEC);
        if (fd < 0)
            return {};
        std::string out;
        if (write(fd) && ::lseek(fd, 0, SEEK_SET) == 0) {
            char buffer[65536];
            for (ssize_t n; (n = ::read(fd, buffer, sizeof buffer)) > 0;)
                out.append(buffer, size_t(n));
        }
        ::close(fd);
        return out;
    }

    uint64_t micros(double seconds) { return uint64_t(std::llround(seconds * 1e6)); }

    void fillRun(ProfileRecord& r, const RemoteRun& run, const SamplingResult& result)
    {
        copy(r.producer, sizeof r.producer, run.producer);
        copy(r.host, sizeof r.host, run.server);
        copy(r.cpu, sizeof r.cpu, run.target);
        copy(r.os, sizeof r.os, run.osabi.empty() ? "unknown (remote)" : run.osabi);
        std::string command;
        for (const std::string& arg : run.command)
            command.append(arg).push_back('\0');
        r.commandSize = uint32_t(std::min(command.size(), sizeof r.command));
        std::memcpy(r.command, command.data(), r.commandSize);
        r.pid = run.pid;
        r.startTime = run.startTime;
        r.endTime = int64_t(std::time(nullptr));
        r.wallUs = r.activeUs = micros(result.wallSeconds);
        r.ticks = result.samples;
        r.status = uint32_t(ProfileStatus::Complete);
        copy(r.endReason, sizeof r.endReason, endReasonName(result.end));
    }

} // namespace

Result<RemoteProfile> RemoteProfile::create(
    const ElfImage& elf, uint64_t loadBias, uint64_t interval, uint64_t budgetBytes)
{
    RemoteProfile p;
    p.m_record = std::make_unique<ProfileRecord>();
    ProfileRecord& r = *p.m_record;
    uint64_t start = 0, end = 0;
    elf.executableRange(start, end);
    r.granularity = machineGranularity(elf.machine);
    if (!computeBinLayout(start, end, r.granularity, budgetBytes, &r.layout))
        return Error { elf.path, 0, "no bin width fits the executable segments in the memory budget" };
    copy(r.arch, sizeof r.arch, machineName(elf.machine));
    copy(r.image, sizeof r.image, elf.path);
    r.buildIdSize = uint32_t(std::min<size_t>(elf.buildId.size(), kMaxBuildId));
    std::memcpy(r.buildId, elf.buildId.data(), r.buildIdSize);
    r.loadBias = loadBias;
    r.mode = uint32_t(SampleMode::Real);
    r.interval = interval;
    copy(r.mechanism, sizeof r.mechanism, mechanismName(Mechanism::GdbRemote));
    p.m_bins.assign(r.layout.count, 0);
    p.m_pcs.assign(kPcTableSlots, PcSlot {});
    uint64_t imageStart = ~0ull, imageEnd = 0;
    for (const ElfSegment& s : elf.segments) {
        imageStart = std::min(imageStart, s.address + loadBias);
        imageEnd = std::max(imageEnd, s.address + s.memSize + loadBias);
    }
    p.m_histogram = makeHistogram(&r, p.m_bins.data(), p.m_pcs.data(), imageStart, imageEnd);
    return p;
}

std::string RemoteProfile::text(
    const RemoteRun& run, const SamplingResult& result, const std::vector<Library>& libraries)
{
    ProfileRecord& r = *m_record;
    fillRun(r, run, result);
    const ObjectSamples objects = attributePcs(m_pcs.data(), m_pcs.size(), libraries, r);
    const ProfileOutput output { &r, m_bins.data(), objects.objects.data(), objects.objects.size(), objects.hits.data(),
        objects.hits.size() };
    std::string text = captured([&output](int fd) { return writeProfile(fd, output) == 0; });
    // The remote records go after the counts, before the objects and bins.
    const size_t counts = text.find("\ncount total ");
    const size_t after = counts == std::string::npos ? std::string::npos : text.find('\n', counts + 1);
    if (after == std::string::npos)
        return {};
    return text.insert(after + 1, remoteRecords(run, result));
}

std::string remoteRecords(const RemoteRun& run, const SamplingResult& result)
{
    const Intrusion in = intrusionOf(result);
    return captured([&](int fd) {
        char buffer[4096];
        LineWriter w(fd, buffer, sizeof buffer);
        w.str("remote-server ").quoted(run.server.c_str()).endl();
        w.str("remote-target ").quoted(run.target.c_str()).endl();
        w.str("remote-mode ").quoted(run.mode.c_str()).endl();
        w.str("remote-pc ").quoted(run.pc.c_str()).endl();
        w.str("remote-interrupt ").quoted(run.interrupt.c_str()).endl();
        if (!result.error.empty())
            w.str("remote-error ").quoted(result.error.c_str()).endl();
        w.str("intrusion-stops ").dec(in.stops).endl();
        w.str("intrusion-stop-time ").fixed(micros(in.mean), 6).ch(' ').fixed(micros(in.p90), 6).endl();
        w.str("intrusion-stopped ").fixed(micros(in.stopped), 6).ch(' ').fixed(micros(in.ratio), 6).endl();
        return w.flush();
    });
}

} // namespace ppe::arc
