#include "ppe/core/output_file.h"

#include <cerrno>
#include <cstdio>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

bool copyString(char* to, size_t size, const char* text)
{
    size_t i = 0;
    for (; text[i] && i + 1 < size; ++i)
        to[i] = text[i];
    to[i] = '\0';
    return !text[i];
}

// Appends text at `to + *used`; false when it does not fit.
static bool append(char* to, size_t size, size_t* used, const char* text)
{
    for (; *text; ++text) {
        if (*used + 1 >= size)
            return false;
        to[(*used)++] = *text;
    }
    to[*used] = '\0';
    return true;
}

static bool appendNumber(char* to, size_t size, size_t* used, unsigned long value)
{
    char digits[24];
    size_t n = sizeof(digits) - 1;
    digits[n] = '\0';
    do {
        digits[--n] = char('0' + value % 10);
        value /= 10;
    } while (value);
    return append(to, size, used, digits + n);
}

// DIR/.NAME.tmp.PID.N for `path` = DIR/NAME.
static bool tempNameFor(const char* path, unsigned attempt, char* out, size_t size)
{
    size_t slash = 0;
    bool hasSlash = false;
    for (size_t i = 0; path[i]; ++i) {
        if (path[i] == '/') {
            slash = i;
            hasSlash = true;
        }
    }
    size_t used = 0;
    out[0] = '\0';
    if (hasSlash) {
        if (slash + 2 >= size)
            return false;
        for (size_t i = 0; i <= slash; ++i)
            out[used++] = path[i];
        out[used] = '\0';
    }
    const char* name = hasSlash ? path + slash + 1 : path;
    return append(out, size, &used, ".") && append(out, size, &used, name) && append(out, size, &used, ".tmp.")
        && appendNumber(out, size, &used, (unsigned long)getpid()) && append(out, size, &used, ".")
        && appendNumber(out, size, &used, attempt);
}

// A device or pipe at `path`, opened for writing (blocking once open); -1 when `path` is none.
static int openDevice(const char* path, int* error)
{
    struct stat st;
    *error = 0;
    if (::stat(path, &st) != 0 || S_ISREG(st.st_mode) || S_ISDIR(st.st_mode))
        return -1;
    // O_NONBLOCK: a FIFO nobody reads is ENXIO at once, never a program hung at its exit.
    const int fd = ::open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        *error = errno;
    else
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    return fd;
}

int openOutput(const char* path, OutputFile* file)
{
    if (!copyString(file->path, sizeof(file->path), path))
        return ENAMETOOLONG;
    int error = 0;
    file->tempPath[0] = '\0';
    file->fd = openDevice(path, &error);
    if (file->fd >= 0 || error)
        return error;
    for (unsigned attempt = 0; attempt < 100; ++attempt) {
        if (!tempNameFor(path, attempt, file->tempPath, sizeof(file->tempPath)))
            return ENAMETOOLONG;
        const int fd = ::open(file->tempPath, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0) {
            file->fd = fd;
            return 0;
        }
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

// NAME.~N~ -> N for entries of `name`'s backups, else 0.
static unsigned long backupNumber(const char* entry, const char* name)
{
    while (*name && *entry == *name) {
        ++entry;
        ++name;
    }
    if (*name || entry[0] != '.' || entry[1] != '~')
        return 0;
    unsigned long n = 0;
    for (entry += 2; *entry >= '0' && *entry <= '9'; ++entry)
        n = n * 10 + static_cast<unsigned long>(*entry - '0');
    return entry[0] == '~' && !entry[1] ? n : 0;
}

// The highest N of the existing PATH.~N~ backups (0 if none), read with raw getdents64 so that it
// stays signal-safe: a new backup is numbered after it, as `cp --backup=numbered` does.
static unsigned long highestBackup(const char* path)
{
    const char* slash = nullptr;
    for (const char* p = path; *p; ++p)
        slash = *p == '/' ? p : slash;
    char dir[PATH_MAX];
    if (slash) {
        const size_t length = size_t(slash - path) + 1;
        if (length >= sizeof(dir))
            return 0;
        for (size_t i = 0; i < length; ++i)
            dir[i] = path[i];
        dir[length] = '\0';
    } else {
        dir[0] = '.';
        dir[1] = '\0';
    }
    const char* name = slash ? slash + 1 : path;
    const int fd = ::open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    unsigned long highest = 0;
    alignas(8) char buffer[4096];
    for (long n; (n = syscall(SYS_getdents64, fd, buffer, sizeof(buffer))) > 0;) {
        for (long at = 0; at < n;) {
            const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
            const unsigned long number = backupNumber(entry->d_name, name);
            highest = number > highest ? number : highest;
            at += entry->d_reclen;
        }
    }
    ::close(fd);
    return highest;
}

int keepNumberedBackup(const char* path)
{
    struct stat st;
    if (::lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    char backup[PATH_MAX];
    for (unsigned long n = highestBackup(path) + 1; n < 100000000; ++n) {
        size_t used = 0;
        backup[0] = '\0';
        if (!append(backup, sizeof(backup), &used, path) || !append(backup, sizeof(backup), &used, ".~")
            || !appendNumber(backup, sizeof(backup), &used, n) || !append(backup, sizeof(backup), &used, "~"))
            return ENAMETOOLONG;
        if (::link(path, backup) == 0)
            return 0;
        if (errno != EEXIST)
            return errno;
    }
    return EEXIST;
}

int writeOutputFile(const char* path, const char* data, size_t size)
{
    OutputFile file;
    if (int error = openOutput(path, &file))
        return error;
    while (size) {
        const ssize_t n = ::write(file.fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            const int error = n < 0 ? errno : EIO;
            abandonOutput(&file);
            return error;
        }
        data += n;
        size -= size_t(n);
    }
    return commitOutput(&file);
}

void abandonOutput(OutputFile* file)
{
    if (file->fd >= 0)
        ::close(file->fd);
    file->fd = -1;
    if (file->tempPath[0])
        ::unlink(file->tempPath);
    file->tempPath[0] = '\0';
}

int commitOutput(OutputFile* file, bool replacing)
{
    int error = 0;
    const bool device = !file->tempPath[0];
    if (!device && ::fsync(file->fd) != 0 && errno != EINVAL && errno != EROFS)
        error = errno;
    if (::close(file->fd) != 0 && !error)
        error = errno;
    file->fd = -1;
    if (device)
        return error;
    if (!error && !replacing)
        error = keepNumberedBackup(file->path);
    if (!error && ::rename(file->tempPath, file->path) != 0)
        error = errno;
    if (error) {
        abandonOutput(file);
        return error;
    }
    file->tempPath[0] = '\0';
    return 0;
}

} // namespace ppe
