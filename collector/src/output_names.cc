#include "output_names.h"

#include "messages.h"
#include "ppe/core/output_file.h"
#include "ppe/core/output_patterns.h"
#include "proc_maps.h"

#include <cerrno>
#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/auxv.h>
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
            if (c[1] == kPatternPid)
                return true;
            c += c[1] == kPatternPercent;
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
            static_assert(kOutputPatternCount == 5, "a new output pattern needs its branch here");
            if (pattern == kPatternPid || pattern == kPatternPercent) {
                appendTo(path, pattern == kPatternPid ? "%p" : "%%");
                e.distinct |= pattern == kPatternPid;
            } else if (pattern == kPatternHost) {
                appendPart(path, parts.host ? parts.host : "localhost");
            } else if (pattern == kPatternRank) {
                appendTo(path, parts.rank ? parts.rank : "%p");
                e.issues |= parts.rank ? 0u : unsigned(kNoRank);
                e.distinct = true;
            } else if (pattern == kPatternJob) {
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

    enum class Directory { None, Own, Foreign, Unmade };

    // Makes the directory `name`, a missing component of a path, in its parent `name`[0, parentEnd)
    // ("/" for 0 when the path is absolute, else "."): only when the parent is the user's or root's.
    int makeOneDirectory(char* name, size_t parentEnd)
    {
        const char saved = name[parentEnd];
        name[parentEnd] = '\0';
        bool foreign = false;
        const bool own = ownDirectoryAt(parentEnd ? name : name[0] == '/' || saved == '/' ? "/" : ".", &foreign);
        name[parentEnd] = saved;
        if (!own)
            return foreign ? EACCES : ENOTDIR;
        return mkdir(name, 0777) == 0 || errno == EEXIST ? 0 : errno;
    }

    // Makes the directory `path` as `mkdir -p` would (issue 34): each component that does not exist,
    // mode 0777 less the umask, and only in a directory of the user's or root's (ownDirectoryAt: no
    // directory of another user's, or symlink of theirs on the way, is made into). Returns 0, or the
    // errno value of the failure (EACCES for another user's directory).
    int makeDirectories(const char* path)
    {
        char prefix[PATH_MAX];
        copyString(prefix, sizeof(prefix), path);
        const size_t n = std::strlen(prefix);
        size_t parentEnd = 0; // where the parent of the component looked at ends (its '/')
        for (size_t i = 1; i <= n; ++i) {
            if (i < n && prefix[i] != '/')
                continue;
            if (prefix[i - 1] == '/') { // "//", or the final '/'
                parentEnd = i;
                continue;
            }
            const char kept = prefix[i];
            prefix[i] = '\0';
            struct stat st { };
            const int error = stat(prefix, &st) == 0 ? 0
                : errno == ENOENT                    ? makeOneDirectory(prefix, parentEnd)
                                                     : errno;
            prefix[i] = kept;
            if (error)
                return error;
            parentEnd = i;
        }
        bool foreign = false;
        return ownDirectoryAt(prefix, &foreign) ? 0 : foreign ? EACCES : ENOTDIR;
    }

    // What the output name is: a directory of the user's or root's (a name ending in '/' is made now,
    // as `mkdir -p` would), one of another user's, one that cannot be made, or none.
    Directory namedDirectory(const char* pathTemplate)
    {
        char path[PATH_MAX];
        outputPathOf(pathTemplate, uint64_t(getpid()), path);
        bool foreign = false;
        const bool own = ownDirectoryAt(path, &foreign);
        const size_t n = std::strlen(path);
        if (foreign) {
            say({ "PPE_OUT: ", path, " is a directory of another user: the profile goes to the current directory" });
            return Directory::Foreign;
        }
        if (own || !n || path[n - 1] != '/')
            return own ? Directory::Own : Directory::None;
        if (const int error = makeDirectories(path)) {
            say({ "PPE_OUT: cannot make the directory ", path, " (", strerrordesc_np(error),
                "): the profile goes to the current directory" });
            return Directory::Unmade;
        }
        return Directory::Own;
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

    // Start-up decisions that the signal-safe writers consult later: set by chooseOutputPath once,
    // before main (and again in each test), read only afterwards.
    char g_userNamed[PATH_MAX]; // the template when it is PPE_OUT itself, as the user named it; else ""
    char g_childTemplate[PATH_MAX]; // a forked child's template when it is not the parent's plus a pid

    // PPE_OUT as a file, or a directory of the user's for one file per process. A directory of another
    // user's is not used: its files go to the current directory (a planted symlink there would lead
    // them anywhere, and they are theirs to read).
    unsigned nameFromPpeOut(
        const char* wanted, const char* imagePath, bool descendant, const NameParts& parts, char* path)
    {
        startDirectory(wanted, path);
        const Expansion e = expandPatterns(wanted, parts, path);
        Directory directory = namedDirectory(path);
        const bool elsewhere = directory == Directory::Foreign || directory == Directory::Unmade;
        if (elsewhere) {
            startDirectory(".", path);
            directory = Directory::Foreign;
        } else if (directory == Directory::Own && path[std::strlen(path) - 1] != '/') {
            appendTo(path, "/");
        }
        const bool distinct = e.distinct && !elsewhere;
        const char* rank = distinct ? nullptr : parts.rank;
        if (directory != Directory::None || descendant) {
            if (directory == Directory::None)
                keepDirectory(path);
            // A directory holds one file per process: by rank, else by pid (unless the directory's own
            // name already has the rank or pid).
            appendImageName(path, baseNameOf(imagePath), descendant || (!rank && !distinct), rank);
        } else if (rank) {
            char part[32] = ".rank";
            appendTo(part, rank);
            insertBeforeExtension(path, part);
        } else {
            copyString(g_userNamed, sizeof(g_userNamed), path);
        }
        return e.issues | (elsewhere ? unsigned(kForeignDirectory) : 0u);
    }

    // True when `line` of /proc/PID/maps maps a live file: a path ending in ".DIGITS.live" (with
    // " (deleted)" once it is removed).
    bool mapsLiveFile(const char* line, size_t length)
    {
        constexpr char kDeleted[] = " (deleted)";
        constexpr size_t kDeletedLength = sizeof(kDeleted) - 1;
        if (length > kDeletedLength && std::memcmp(line + length - kDeletedLength, kDeleted, kDeletedLength) == 0)
            length -= kDeletedLength;
        if (length < 8 || std::memcmp(line + length - 5, ".live", 5) != 0 || !std::memchr(line, '/', length))
            return false;
        size_t digits = length - 5;
        while (digits > 0 && line[digits - 1] >= '0' && line[digits - 1] <= '9')
            --digits;
        return digits < length - 5 && digits > 0 && line[digits - 1] == '.';
    }

    // True when process `pid` runs the collector: it maps a live file (NAME.PID.live; a forked child
    // maps its parent's until it has its own).
    bool runsCollector(pid_t pid)
    {
        char path[48] = "/proc/";
        char number[24];
        appendTo(path, decimal(uint64_t(pid), number, sizeof(number)));
        appendTo(path, "/maps");
        const int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return false;
        char buffer[4096];
        size_t kept = 0;
        bool found = false;
        for (ssize_t n; !found && (n = read(fd, buffer + kept, sizeof(buffer) - kept)) > 0;) {
            const size_t end = kept + size_t(n);
            size_t line = 0;
            for (const char* nl;
                 !found && (nl = static_cast<const char*>(std::memchr(buffer + line, '\n', end - line)));
                 line = size_t(nl - buffer) + 1)
                found = mapsLiveFile(buffer + line, size_t(nl - buffer) - line);
            kept = line == 0 && end == sizeof(buffer) ? 0 : end - line; // a line longer than the buffer: dropped
            std::memmove(buffer, buffer + end - kept, kept);
        }
        close(fd);
        return found;
    }

    // This process's group and session (fields 5 and 6 of /proc/self/stat).
    bool groupAndSession(pid_t* group, pid_t* session)
    {
        char text[512];
        const int fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
        const ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text));
        if (fd >= 0)
            close(fd);
        if (n <= 0)
            return false;
        *group = pid_t(statField(text, size_t(n), 5));
        *session = pid_t(statField(text, size_t(n), 6));
        return true;
    }

    // True when a process that runs the collector started this one: its parent, or, once the parent
    // has ended and init adopted this process (a background grandchild of a script, `( prog & )`),
    // the leader of its process group or session. Only then: the tasks of a Slurm step share the
    // first task's process group, and each is a program the user named. Then this process is a
    // program that a profiled program ran (issue 33). Read from /proc at start-up: nothing the
    // program can observe is touched (no variable is set for it).
    bool parentIsProfiled()
    {
        const pid_t parent = getppid();
        if (runsCollector(parent))
            return true;
        if (parent != 1)
            return false; // a live parent that runs no collector, or a subreaper: named by the user
        pid_t group = 0;
        pid_t session = 0;
        const pid_t self = getpid();
        if (!groupAndSession(&group, &session))
            return false;
        return (group > 0 && group != self && runsCollector(group))
            || (session > 0 && session != self && session != group && runsCollector(session));
    }

    // Whether the file at `path` begins with "#!", as a script the kernel runs through its interpreter.
    bool startsWithShebang(const char* path)
    {
        const int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (fd < 0)
            return false;
        char magic[2] = {};
        const bool script = read(fd, magic, sizeof(magic)) == 2 && magic[0] == '#' && magic[1] == '!';
        close(fd);
        return script;
    }

    // For an interpreted script run by its name (`./run.sh` under LD_PRELOAD), the script's absolute
    // path into `script`: the kernel ran its interpreter, whose name (sh) and directory (/usr/bin)
    // the user did not name (issue 33), and two scripts of one exec chain would share the
    // interpreter's name (issue 34). AT_EXECFN is the name given to execve; it names the executable
    // itself for every other program (same device and inode), and then nothing changes.
    bool scriptPath(const char* imagePath, char* script)
    {
        const char* named = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
        struct stat file { };
        struct stat image { };
        if (!named || !*named || stat(named, &file) != 0 || stat(imagePath, &image) != 0
            || (file.st_dev == image.st_dev && file.st_ino == image.st_ino) || !startsWithShebang(named))
            return false;
        script[0] = '\0';
        if (named[0] != '/') {
            if (!getcwd(script, PATH_MAX - 1))
                return false;
            appendTo(script, "/");
        }
        appendTo(script, named);
        return std::strchr(script, '/') != nullptr;
    }

} // namespace

unsigned chooseOutputPath(
    const char* wanted, const char* imagePath, bool launchedDescendant, const NameParts& parts, char* path)
{
    g_userNamed[0] = '\0';
    g_childTemplate[0] = '\0';
    const bool descendant = launchedDescendant || parentIsProfiled();
    const char* directory = parts.defaultDirectory && *parts.defaultDirectory ? parts.defaultDirectory : nullptr;
    // An interpreted script run by its name is named by the script (run.sh.ppe), not by its interpreter.
    char script[PATH_MAX];
    const char* program = scriptPath(imagePath, script) ? script : imagePath;
    if (wanted)
        return nameFromPpeOut(wanted, program, descendant, parts, path);
    // Beside the executable is for the program the user named (beside the script, when that was an
    // interpreted script): the programs it runs, and its forked children, write in the current
    // directory (a directory they merely run from may be /usr/bin).
    char cwd[PATH_MAX];
    if (!directory && descendant && getcwd(cwd, sizeof(cwd)))
        directory = cwd;
    defaultName(program, directory, descendant, parts.rank, path);
    if (!directory && getcwd(cwd, sizeof(cwd)))
        defaultName(program, cwd, true, nullptr, g_childTemplate);
    return 0;
}

bool userNamedOutput(const char* path)
{
    if (!g_userNamed[0])
        return false;
    char named[PATH_MAX];
    outputPathOf(g_userNamed, uint64_t(getpid()), named);
    return std::strcmp(named, path) == 0;
}

void outputPathOf(const char* pathTemplate, uint64_t pid, char* path)
{
    char number[24];
    const char* digits = decimal(pid, number, sizeof(number));
    size_t used = 0;
    for (const char* c = pathTemplate; *c && used + 1 < PATH_MAX; ++c) {
        if (*c == '%' && c[1] == kPatternPid) {
            for (const char* d = digits; *d && used + 1 < PATH_MAX; ++d)
                path[used++] = *d;
            ++c;
            continue;
        }
        path[used++] = *c;
        c += *c == '%' && c[1] == kPatternPercent;
    }
    path[used] = '\0';
}

void outputPathForChild(const char* pathTemplate, char* path)
{
    const uint64_t pid = uint64_t(getpid());
    outputPathOf(g_childTemplate[0] ? g_childTemplate : pathTemplate, pid, path);
    if (g_childTemplate[0])
        return;
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
    int firstError = 0; // why the output's own directory refused it, rather than the current one
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
        firstError = firstError ? firstError : errno;
    }
    path[0] = '\0';
    errno = firstError;
    return -1;
}

} // namespace ppe
