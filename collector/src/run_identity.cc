#include "run_identity.h"

#include "ppe/core/env_value.h"
#include "ppe/core/output_file.h"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <initializer_list>
#include <sys/utsname.h>
#include <unistd.h>

namespace ppe {

namespace {

    void readSmallFile(const char* path, char* out, size_t capacity, uint32_t* used)
    {
        *used = 0;
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        while (*used < capacity) {
            const ssize_t n = read(fd, out + *used, capacity - *used);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                break;
            *used += uint32_t(n);
        }
        close(fd);
    }

    // "model name : Intel(R) ..." (x86), else the first "Hardware"/"cpu model"/"uarch" line, else "".
    void readCpuModel(char* out, size_t capacity)
    {
        static char info[16384];
        uint32_t used = 0;
        readSmallFile("/proc/cpuinfo", info, sizeof(info) - 1, &used);
        info[used] = '\0';
        for (const char* key : { "model name", "cpu model", "Hardware", "uarch", "cpu" }) {
            const char* at = std::strstr(info, key);
            const char* colon = at ? std::strchr(at, ':') : nullptr;
            if (!colon)
                continue;
            const char* start = colon + 1 + (colon[1] == ' ');
            size_t n = 0;
            while (start[n] && start[n] != '\n' && n + 1 < capacity) {
                out[n] = start[n];
                ++n;
            }
            out[n] = '\0';
            return;
        }
    }

    void describeSystem(ProfileRecord& r)
    {
        utsname u {};
        uname(&u);
        copyString(r.host, sizeof(r.host), u.nodename);
        copyString(r.arch, sizeof(r.arch), u.machine);
        copyString(r.os, sizeof(r.os), u.sysname);
        const size_t used = std::strlen(r.os);
        if (used + 1 < sizeof(r.os)) {
            r.os[used] = ' ';
            copyString(r.os + used + 1, sizeof(r.os) - used - 1, u.release);
        }
        readCpuModel(r.cpu, sizeof(r.cpu));
    }

} // namespace

void describeRun(ProfileRecord& r, const ObjectImage& image, const Config& config, Mechanism mechanism)
{
    copyString(r.producer, sizeof(r.producer), "libppe " PPE_VERSION);
    describeSystem(r);
    readSmallFile("/proc/self/cmdline", r.command, sizeof(r.command), &r.commandSize);
    copyString(r.image, sizeof(r.image), image.path);
    std::memcpy(r.buildId, image.buildId, image.buildIdSize);
    r.buildIdSize = image.buildIdSize;
    r.codeSectionCount = readCodeSections(image.path, r.codeSections, kMaxCodeSections);
    r.pid = uint64_t(getpid());
    r.parentPid = uint64_t(getppid());
    r.rankKnown = config.rank && parseDecimal(config.rank, 0, UINT64_MAX, &r.rank) == ValueError::None;
    r.startTime = int64_t(time(nullptr));
    r.granularity = instructionGranularity();
    r.mode = uint32_t(config.mode);
    r.interval = config.interval;
    copyString(r.mechanism, sizeof(r.mechanism), mechanismName(mechanism));
}

} // namespace ppe
