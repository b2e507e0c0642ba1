#include "ppe/core/output_file.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <sys/stat.h>
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

int openOutput(const char* path, OutputFile* file)
{
    if (!copyString(file->path, sizeof(file->path), path))
        return ENAMETOOLONG;
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

int keepNumberedBackup(const char* path)
{
    struct stat st;
    if (::lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : errno;
    if (S_ISDIR(st.st_mode))
        return EISDIR;
    char backup[PATH_MAX];
    for (unsigned long n = 1; n < 1000000; ++n) {
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
    if (::fsync(file->fd) != 0 && errno != EINVAL && errno != EROFS)
        error = errno;
    if (::close(file->fd) != 0 && !error)
        error = errno;
    file->fd = -1;
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
