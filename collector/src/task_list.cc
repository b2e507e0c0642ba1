#include "task_list.h"

#include "initially.h"
#include "service_thread.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    pid_t parseTid(const char* name)
    {
        pid_t tid = 0;
        for (; *name; ++name) {
            if (*name < '0' || *name > '9')
                return 0;
            tid = tid * 10 + (*name - '0');
        }
        return tid;
    }

    // "/proc/self/task/TID/LEAF" into `path` (64 bytes are plenty).
    void taskPath(char* path, size_t size, pid_t tid, const char* leaf)
    {
        const char head[] = "/proc/self/task/";
        size_t at = 0;
        for (const char* c = head; *c && at + 1 < size; ++c)
            path[at++] = *c;
        char digits[16];
        int n = 0;
        for (unsigned v = unsigned(tid); v || !n; v /= 10)
            digits[n++] = char('0' + v % 10);
        while (n && at + 1 < size)
            path[at++] = digits[--n];
        if (at + 1 < size)
            path[at++] = '/';
        for (const char* c = leaf; *c && at + 1 < size; ++c)
            path[at++] = *c;
        path[at] = '\0';
    }

    // The thread ids of an open /proc/PID/task read from where it stands. The buffer is small: this
    // runs in the POSIX timer's handler (fanOut), on the program's alternate stack when it has one,
    // where a 4 KB buffer crashed a program whose stack had room for its own handler (issue 33).
    int readEntries(int fd, pid_t* out, int capacity)
    {
        alignas(8) char buffer[512]; // 16 entries a call
        int count = 0;
        for (long n; (n = syscall(SYS_getdents64, fd, buffer, sizeof(buffer))) > 0;) {
            for (long at = 0; at < n;) {
                const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
                const pid_t tid = parseTid(entry->d_name);
                if (tid > 0 && count < capacity)
                    out[count++] = tid;
                at += entry->d_reclen;
            }
        }
        return count;
    }

    // /proc/self/task held in the collector thread's own descriptor table, by that thread (its
    // kernel id) of that process: a forked child's collector thread, or one back from parking, has
    // a table of its own where the number means nothing (its start closed it), and opens its own.
    struct HeldFolder {
        Initially<int, -1> fd;
        pid_t thread = 0;
        pid_t process = 0;
    };
    HeldFolder g_held;

    // The held folder's descriptor, opened on first use; -1 off the collector thread or without a
    // table of its own (the program would see the number) or /proc.
    int heldTaskFolder()
    {
        if (!ownDescriptorTable())
            return -1;
        const pid_t thread = pid_t(syscall(SYS_gettid));
        const pid_t process = getpid();
        if (g_held.fd >= 0 && g_held.thread == thread && g_held.process == process)
            return g_held.fd;
        // Above the standard three, which this table has closed but for standard error: a stray
        // write to 0 or 1 on this thread must not reach the folder.
        const int low = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        const int fd = low >= 0 && low <= STDERR_FILENO ? fcntl(low, F_DUPFD_CLOEXEC, STDERR_FILENO + 1) : low;
        if (fd != low)
            close(low);
        g_held.fd = fd;
        g_held.thread = thread;
        g_held.process = process;
        return fd;
    }

} // namespace

Transient openTransient(const char* path, int flags)
{
    Transient t;
    t.fd = open(path, flags | O_CLOEXEC);
    struct stat st { };
    if (t.fd >= 0 && fstat(t.fd, &st) == 0) {
        t.dev = st.st_dev;
        t.ino = st.st_ino;
    }
    return t;
}

void closeTransient(const Transient& opened)
{
    struct stat st { };
    if (opened.fd >= 0 && fstat(opened.fd, &st) == 0 && st.st_dev == opened.dev && st.st_ino == opened.ino)
        close(opened.fd);
}

int listThreads(pid_t* out, int capacity)
{
    const Transient dir = openTransient("/proc/self/task", O_RDONLY | O_DIRECTORY);
    if (dir.fd < 0)
        return -1;
    const int count = readEntries(dir.fd, out, capacity);
    closeTransient(dir);
    return count;
}

int listThreadsHeld(pid_t* out, int capacity)
{
    const int fd = heldTaskFolder();
    if (fd < 0 || lseek(fd, 0, SEEK_SET) != 0)
        return listThreads(out, capacity);
    return readEntries(fd, out, capacity);
}

int threadCount()
{
    struct stat st { };
    const int fd = heldTaskFolder();
    if (fd >= 0)
        return fstat(fd, &st) == 0 && st.st_nlink > 2 ? int(st.st_nlink - 2) : -1;
    const Transient dir = openTransient("/proc/self/task", O_RDONLY | O_DIRECTORY);
    const bool known = dir.fd >= 0 && fstat(dir.fd, &st) == 0 && st.st_nlink > 2;
    closeTransient(dir);
    return known ? int(st.st_nlink - 2) : -1;
}

long readTaskFile(pid_t tid, const char* leaf, char* text, size_t size)
{
    if (size == 0)
        return -1;
    char path[64];
    taskPath(path, sizeof(path), tid, leaf);
    const Transient file = openTransient(path, O_RDONLY);
    if (file.fd < 0)
        return -1;
    const long got = read(file.fd, text, size - 1);
    closeTransient(file);
    text[got > 0 ? got : 0] = '\0';
    return got;
}

char threadState(pid_t tid)
{
    char text[512];
    const long got = readTaskFile(tid, "stat", text, sizeof(text));
    for (long i = got - 1; i > 0; --i) {
        if (text[i] == ')')
            return i + 2 < got ? text[i + 2] : 0;
    }
    return 0;
}

} // namespace ppe
