#include "perf_events.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    // `fd` moved high (close-on-exec); `fd` itself when that fails.
    int moveFdHigh(int fd)
    {
        constexpr int kHighFd = 512; // keep the collector's descriptors out of the program's way
        const int high = fcntl(fd, F_DUPFD_CLOEXEC, kHighFd);
        if (high < 0)
            return fd;
        close(fd);
        return high;
    }

} // namespace

perf_event_attr taskClockAttr(uint64_t periodNs)
{
    perf_event_attr attr {};
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = periodNs;
    attr.disabled = 1;
    attr.inherit = 1; // threads created later are counted too
    attr.exclude_kernel = 1; // allowed at perf_event_paranoid 2
    attr.exclude_hv = 1;
    return attr;
}

int openPerfEvent(perf_event_attr& attr, pid_t tid, int cpu)
{
    const long fd = syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -1 : moveFdHigh(int(fd));
}

} // namespace ppe
