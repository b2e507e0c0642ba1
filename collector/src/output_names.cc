#include "output_names.h"

#include "ppe/core/output_file.h"

#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace ppe {

const char* decimal(uint64_t value, char* buffer, size_t size)
{
    char* p = buffer + size - 1;
    *p = '\0';
    do {
        *--p = char('0' + value % 10);
        value /= 10;
    } while (value && p > buffer);
    return p;
}

void appendTo(char* path, const char* text)
{
    const size_t used = std::strlen(path);
    copyString(path + used, PATH_MAX - used, text);
}

namespace {

    const char* baseNameOf(const char* path)
    {
        const char* slash = std::strrchr(path, '/');
        return slash ? slash + 1 : path;
    }

    bool namesDirectory(const char* path)
    {
        struct stat st { };
        const size_t n = std::strlen(path);
        return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    }

    // `wanted` resolved against the current directory.
    void absoluteName(const char* wanted, char* path)
    {
        if (wanted[0] == '/' || !getcwd(path, PATH_MAX)) {
            copyString(path, PATH_MAX, wanted);
            return;
        }
        appendTo(path, "/");
        appendTo(path, wanted);
    }

    // Keeps the directory part of `path` (through its last '/'), or makes it "./".
    void keepDirectory(char* path)
    {
        char* slash = std::strrchr(path, '/');
        if (slash)
            slash[1] = '\0';
        else
            copyString(path, PATH_MAX, "./");
    }

} // namespace

void chooseOutputPath(const char* wanted, const char* imagePath, bool descendant, char* path)
{
    if (!wanted) {
        char beside[PATH_MAX];
        copyString(beside, PATH_MAX, imagePath);
        appendTo(beside, ".ppe");
        if (descendant)
            outputPathForChild(beside, path);
        else
            copyString(path, PATH_MAX, beside);
        return;
    }
    absoluteName(wanted, path);
    const bool directory = namesDirectory(path);
    if (directory && path[std::strlen(path) - 1] != '/')
        appendTo(path, "/");
    if (!directory && !descendant)
        return;
    if (!directory)
        keepDirectory(path);
    appendTo(path, baseNameOf(imagePath));
    if (descendant) {
        char pid[24];
        appendTo(path, ".");
        appendTo(path, decimal(uint64_t(getpid()), pid, sizeof(pid)));
    }
    appendTo(path, ".ppe");
}

void outputPathForChild(const char* base, char* out)
{
    const char* slash = std::strrchr(base, '/');
    const char* dot = std::strrchr(slash ? slash : base, '.');
    if (dot && (dot == base || dot[-1] == '/'))
        dot = nullptr; // a leading dot is not an extension
    const size_t stem = dot ? size_t(dot - base) : std::strlen(base);
    char pid[24];
    const char* p = decimal(uint64_t(getpid()), pid, sizeof(pid));
    copyString(out, stem + 1 < PATH_MAX ? stem + 1 : PATH_MAX, base);
    appendTo(out, ".");
    appendTo(out, p);
    if (dot)
        appendTo(out, dot);
}

int openLiveFile(const char* outputPath, char* path)
{
    char pid[24];
    const char* p = decimal(uint64_t(getpid()), pid, sizeof(pid));
    for (int attempt = 0; attempt < 2; ++attempt) {
        const char* base = outputPath;
        if (attempt == 1) {
            const char* slash = std::strrchr(base, '/');
            base = slash ? slash + 1 : base;
        }
        copyString(path, PATH_MAX, base);
        appendTo(path, ".");
        appendTo(path, p);
        appendTo(path, ".live");
        const int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd >= 0)
            return fd;
    }
    path[0] = '\0';
    return -1;
}

} // namespace ppe
