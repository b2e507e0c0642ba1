#include "task_list.h"

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
    const int fd = dir.fd;
    if (fd < 0)
        return -1;
    alignas(8) char buffer[4096];
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
    closeTransient(dir);
    return count;
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
