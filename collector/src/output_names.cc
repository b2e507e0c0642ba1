#include "output_names.h"

#include "ppe/core/output_file.h"

#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
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

    // Appends `text` with every '%' doubled: a literal part of a template.
    void appendLiteral(char* path, const char* text)
    {
        size_t used = std::strlen(path);
        for (; *text && used + 2 < PATH_MAX; ++text) {
            path[used++] = *text;
            if (*text == '%')
                path[used++] = '%';
        }
        path[used] = '\0';
    }

    // Appends a job id or host name as one file-name part: a '/' in it would make a directory.
    void appendPart(char* path, const char* text)
    {
        char part[PATH_MAX];
        copyString(part, sizeof(part), text);
        for (char* c = part; *c; ++c)
            *c = *c == '/' ? '_' : *c;
        appendLiteral(path, part);
    }

    // Where the extension of the file name in `path` starts (its last '.'), or nullptr; a leading
    // dot is no extension.
    char* extensionOf(char* path)
    {
        char* base = std::strrchr(path, '/');
        base = base ? base + 1 : path;
        char* dot = std::strrchr(base, '.');
        return dot && dot != base ? dot : nullptr;
    }

    // NAME.EXT -> NAME<text>.EXT (NAME -> NAME<text> without an extension).
    void insertBeforeExtension(char* path, const char* text)
    {
        char* dot = extensionOf(path);
        char extension[PATH_MAX] = "";
        if (dot) {
            copyString(extension, sizeof(extension), dot);
            *dot = '\0';
        }
        appendTo(path, text);
        appendTo(path, extension);
    }

    // True when the template names the pid (a %p that is not the second half of a %%).
    bool hasPid(const char* pathTemplate)
    {
        for (const char* c = pathTemplate; *c; ++c) {
            if (*c != '%')
                continue;
            if (c[1] == 'p')
                return true;
            c += c[1] == '%';
        }
        return false;
    }

    struct Expansion {
        unsigned issues = 0;
        bool distinct = false; // names the rank or the pid: one file per process already
    };

    // PPE_OUT with %h %r %j expanded, appended to `path` as a template (%p and %% stay).
    Expansion expandPatterns(const char* wanted, const NameParts& parts, char* path)
    {
        Expansion e;
        for (const char* c = wanted; *c; ++c) {
            const char one[2] = { *c, '\0' };
            if (*c != '%' || !c[1]) {
                appendLiteral(path, one);
                continue;
            }
            const char pattern = *++c;
            if (pattern == 'p' || pattern == '%') {
                appendTo(path, pattern == 'p' ? "%p" : "%%");
                e.distinct |= pattern == 'p';
            } else if (pattern == 'h') {
                appendPart(path, parts.host ? parts.host : "localhost");
            } else if (pattern == 'r') {
                appendTo(path, parts.rank ? parts.rank : "%p");
                e.issues |= parts.rank ? 0u : unsigned(kNoRank);
                e.distinct = true;
            } else if (pattern == 'j') {
                appendPart(path, parts.job ? parts.job : "nojob");
                e.issues |= parts.job ? 0u : unsigned(kNoJob);
            } else {
                const char unknown[3] = { '%', pattern, '\0' };
                appendLiteral(path, unknown);
                e.issues |= kUnknownPattern;
            }
        }
        return e;
    }

    bool namesDirectory(const char* pathTemplate)
    {
        char path[PATH_MAX];
        outputPathOf(pathTemplate, uint64_t(getpid()), path);
        struct stat st { };
        const size_t n = std::strlen(path);
        return (n && path[n - 1] == '/') || (stat(path, &st) == 0 && S_ISDIR(st.st_mode));
    }

    // The current directory and a '/' (as a template), unless `wanted` is absolute.
    void startDirectory(const char* wanted, char* path)
    {
        path[0] = '\0';
        char cwd[PATH_MAX];
        if (wanted[0] == '/' || !getcwd(cwd, sizeof(cwd)))
            return;
        appendLiteral(path, cwd);
        appendTo(path, "/");
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

    // IMAGE_NAME.ppe, IMAGE_NAME.%p.ppe for a descendant (`withPid`) or IMAGE_NAME.rankR.ppe, after `path`.
    void appendImageName(char* path, const char* imageName, bool withPid, const char* rank)
    {
        appendLiteral(path, imageName);
        if (withPid) {
            appendTo(path, ".%p");
        } else if (rank) {
            appendTo(path, ".rank");
            appendTo(path, rank);
        }
        appendTo(path, ".ppe");
    }

    // No PPE_OUT: IMAGE.ppe beside the executable, or IMAGE_NAME.ppe in `defaultDirectory` (the
    // launcher's current directory, PPE_DEFAULT_DIR).
    void defaultName(const char* imagePath, const char* defaultDirectory, bool descendant, const char* rank, char* path)
    {
        path[0] = '\0';
        if (!defaultDirectory || !*defaultDirectory) {
            appendImageName(path, imagePath, descendant, rank);
            return;
        }
        appendLiteral(path, defaultDirectory);
        if (path[std::strlen(path) - 1] != '/')
            appendTo(path, "/");
        appendImageName(path, baseNameOf(imagePath), descendant, rank);
    }

} // namespace

unsigned chooseOutputPath(
    const char* wanted, const char* imagePath, bool descendant, const NameParts& parts, char* path)
{
    if (!wanted) {
        defaultName(imagePath, parts.defaultDirectory, descendant, parts.rank, path);
        return 0;
    }
    startDirectory(wanted, path);
    const Expansion e = expandPatterns(wanted, parts, path);
    const bool directory = namesDirectory(path);
    if (directory && path[std::strlen(path) - 1] != '/')
        appendTo(path, "/");
    const char* rank = e.distinct ? nullptr : parts.rank;
    if (directory || descendant) {
        if (!directory)
            keepDirectory(path);
        // A directory holds one file per process: by rank, else by pid (unless the directory's own
        // name already has the rank or pid).
        const bool withPid = descendant || (directory && !rank && !e.distinct);
        appendImageName(path, baseNameOf(imagePath), withPid, rank);
    } else if (rank) {
        char part[32] = ".rank";
        appendTo(part, rank);
        insertBeforeExtension(path, part);
    }
    return e.issues;
}

void outputPathOf(const char* pathTemplate, uint64_t pid, char* path)
{
    char number[24];
    const char* digits = decimal(pid, number, sizeof(number));
    size_t used = 0;
    for (const char* c = pathTemplate; *c && used + 1 < PATH_MAX; ++c) {
        if (*c == '%' && c[1] == 'p') {
            for (const char* d = digits; *d && used + 1 < PATH_MAX; ++d)
                path[used++] = *d;
            ++c;
            continue;
        }
        path[used++] = *c;
        c += *c == '%' && c[1] == '%';
    }
    path[used] = '\0';
}

void outputPathForChild(const char* pathTemplate, char* path)
{
    const uint64_t pid = uint64_t(getpid());
    outputPathOf(pathTemplate, pid, path);
    if (hasPid(pathTemplate))
        return;
    char number[24];
    char part[32] = ".";
    appendTo(part, decimal(pid, number, sizeof(number)));
    insertBeforeExtension(path, part);
}

void shortHostName(char* out, size_t size)
{
    utsname u {};
    uname(&u);
    copyString(out, size, u.nodename);
    if (char* dot = std::strchr(out, '.'))
        *dot = '\0';
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
