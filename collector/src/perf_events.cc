#include "perf_events.h"

#include "initially.h"
#include "task_list.h"

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    constexpr int kHighFd = 512; // the collector's descriptors stay out of the way of small numbers
    constexpr int kMaxOwned = 2048; // rings (one a CPU, at most 1024) and perf-task-clock's events
    constexpr rlim_t kSmallestTop = 1024; // a table this large is rarely filled

    struct Owned {
        Initially<int, -1> fd;
        uint64_t id = 0;
    };

    // The events the collector opened (copied into a forked child, where they name the parent's).
    Owned g_owned[kMaxOwned];

    // A placement under way: descriptors go at `base` and up, the soft limit raised meanwhile.
    struct Placement {
        bool active = false;
        rlimit saved {};
        int base = 0;
    };

    Placement g_placement;

    // RLIMIT_NOFILE read and set by raw system calls (prlimit64's 64-bit fields on every ABI): no
    // new import for libppe (test/install), and no wrapper a program may have interposed.
    struct Limit64 {
        uint64_t cur, max;
    };

    bool readLimit(rlimit* limit)
    {
        Limit64 got {};
        if (syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, nullptr, &got) != 0)
            return false;
        limit->rlim_cur = got.cur == ~uint64_t(0) ? RLIM_INFINITY : rlim_t(got.cur);
        limit->rlim_max = got.max == ~uint64_t(0) ? RLIM_INFINITY : rlim_t(got.max);
        return true;
    }

    bool writeLimit(const rlimit& limit)
    {
        const Limit64 set { limit.rlim_cur == RLIM_INFINITY ? ~uint64_t(0) : uint64_t(limit.rlim_cur),
            limit.rlim_max == RLIM_INFINITY ? ~uint64_t(0) : uint64_t(limit.rlim_max) };
        return syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &set, nullptr) == 0;
    }

    // The highest descriptor open now (/proc/self/fd; -1 when it cannot be read).
    int highestDescriptor()
    {
        const Transient opened = openTransient("/proc/self/fd", O_RDONLY | O_DIRECTORY);
        const int dir = opened.fd;
        if (dir < 0)
            return -1;
        int highest = -1;
        alignas(8) char buffer[4096];
        for (long n; (n = syscall(SYS_getdents64, dir, buffer, sizeof(buffer))) > 0;) {
            for (long at = 0; at < n;) {
                const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
                int fd = 0;
                const char* c = entry->d_name;
                for (; *c >= '0' && *c <= '9'; ++c)
                    fd = fd * 10 + (*c - '0');
                if (!*c && c != entry->d_name && fd != dir && fd > highest)
                    highest = fd;
                at += entry->d_reclen;
            }
        }
        closeTransient(opened);
        return highest;
    }

    // `fd` placed at the open placement's base and up, close-on-exec (the low one closed); -1 with
    // errno when it cannot be (then `fd` is closed too).
    int placeHigh(int fd)
    {
        const int high = fcntl(fd, F_DUPFD_CLOEXEC, g_placement.base);
        const int error = errno;
        close(fd);
        errno = error;
        return high;
    }

    // `fd` moved to the highest free number below the soft limit (close-on-exec), for an event that
    // needs its descriptor where the limits leave no room above: only a program that fills its whole
    // table sees it. -1 with EMFILE (`fd` closed) when the table is small or its top 64 are in use.
    int placeAtTop(int fd)
    {
        rlimit limit {};
        if (!readLimit(&limit) || limit.rlim_cur > rlim_t(0x7fffffff) || limit.rlim_cur < kSmallestTop) {
            close(fd);
            errno = EMFILE;
            return -1;
        }
        for (int n = int(limit.rlim_cur) - 1, tries = 0; n > fd && tries < 64; --n, ++tries) {
            if (fcntl(n, F_GETFD) >= 0 || errno != EBADF)
                continue; // in use: never dup over it
            if (syscall(SYS_dup3, fd, n, O_CLOEXEC) == n) {
                close(fd);
                return n;
            }
        }
        close(fd);
        errno = EMFILE;
        return -1;
    }

    bool remember(int fd)
    {
        uint64_t id = 0;
        if (ioctl(fd, PERF_EVENT_IOC_ID, &id) != 0)
            return false;
        for (Owned& o : g_owned)
            if (o.fd < 0) {
                o = Owned { fd, id };
                return true;
            }
        return false;
    }

    Owned* entryOf(int fd)
    {
        if (fd < 0)
            return nullptr;
        for (Owned& o : g_owned)
            if (o.fd == fd)
                return &o;
        return nullptr;
    }

    bool sameEvent(const Owned& o)
    {
        uint64_t id = 0;
        return ioctl(o.fd, PERF_EVENT_IOC_ID, &id) == 0 && id == o.id;
    }

    void endPlacement()
    {
        if (g_placement.active)
            writeLimit(g_placement.saved); // exactly as it was
        g_placement.active = false;
    }

    // Starts a placement of `count` descriptors: at or above max(512, the soft limit) and above the
    // highest descriptor in use, the soft limit raised to cover them (restored by endPlacement).
    // False, with nothing changed, when the hard limit leaves no room (or the kernel refuses).
    bool beginPlacement(int count)
    {
        rlimit limit {};
        if (!readLimit(&limit))
            return false;
        const rlim_t soft = limit.rlim_cur;
        rlim_t base = soft > rlim_t(kHighFd) ? soft : rlim_t(kHighFd);
        const int highest = highestDescriptor();
        if (highest >= 0 && rlim_t(highest) + 1 > base)
            base = rlim_t(highest) + 1;
        const rlim_t needed = base + rlim_t(count);
        if (base > rlim_t(0x7fffffff) - rlim_t(count) || (limit.rlim_max != RLIM_INFINITY && needed > limit.rlim_max))
            return false;
        rlimit raised { needed, limit.rlim_max };
        if (!writeLimit(raised))
            return false; // e.g. above fs.nr_open
        g_placement = Placement { true, limit, int(base) };
        return true;
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

bool beginPerfPlacement(int count) { return !g_placement.active && beginPlacement(count); }

void endPerfPlacement() { endPlacement(); }

int openPerfEvent(perf_event_attr& attr, pid_t tid, int cpu)
{
    const bool own = !g_placement.active;
    const bool room = !own || beginPlacement(1);
    const int low = openTransientPerfEvent(attr, tid, cpu);
    const int fd = low < 0 ? -1 : room ? placeHigh(low) : placeAtTop(low);
    const int error = errno;
    if (own && room)
        endPlacement();
    errno = error;
    if (fd >= 0 && !remember(fd)) {
        close(fd);
        errno = ENFILE;
        return -1;
    }
    return fd;
}

int openTransientPerfEvent(perf_event_attr& attr, pid_t tid, int cpu)
{
    const long fd = syscall(SYS_perf_event_open, &attr, tid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
    return fd < 0 ? -1 : int(fd);
}

bool rememberPerfEvent(int fd) { return remember(fd); }

void forgetPerfEvent(int fd)
{
    if (Owned* o = entryOf(fd))
        *o = Owned {};
}

bool ownsPerfEvent(int fd)
{
    const Owned* o = entryOf(fd);
    return o && sameEvent(*o);
}

int controlPerfEvent(int fd, unsigned long request, unsigned long arg)
{
    if (!ownsPerfEvent(fd)) {
        errno = EBADF;
        return -1;
    }
    return ioctl(fd, request, arg);
}

bool closePerfEvent(int fd)
{
    Owned* o = entryOf(fd);
    if (!o)
        return false;
    const bool ours = sameEvent(*o);
    if (ours)
        close(fd);
    *o = Owned {};
    return ours;
}

void separatePerfContext()
{
    perf_event_attr attr {};
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_DUMMY;
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.exclude_hv = 1;
    // At the lowest free number for a moment (a placed one costs about ten system calls, and this
    // runs at every thread creation), and closed only while that number is still a perf event: a
    // program thread that closed it and opened a file there in between keeps its file.
    const int fd = openTransientPerfEvent(attr, 0, -1);
    uint64_t id = 0;
    if (fd >= 0 && ioctl(fd, PERF_EVENT_IOC_ID, &id) == 0)
        close(fd);
}

} // namespace ppe
