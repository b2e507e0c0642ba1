#include "ppe/core/output_file.h"

#include <cerrno>
#include <cstdint>
#include <cstdio> // renameat
#include <dirent.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <sys/auxv.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <time.h>
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

namespace {

    constexpr int kMaxHops = 8; // symlinks followed at a name the user gave (the kernel allows 40)
    constexpr int kTemporaryTries = 16; // random names: a clash is chance, not an attack
    constexpr unsigned long kBackupSlack = 1000; // a backup number counts up to (backups present) + this
    constexpr int kMaxBackupDigits = 9;
    constexpr int kBackupTries = 1000; // numbers taken between the scan and the link

    // Appends text at `to + *used`; false when it does not fit.
    bool append(char* to, size_t size, size_t* used, const char* text)
    {
        for (; *text; ++text) {
            if (*used + 1 >= size)
                return false;
            to[(*used)++] = *text;
        }
        to[*used] = '\0';
        return true;
    }

    bool appendNumber(char* to, size_t size, size_t* used, unsigned long value)
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

    // The last component of `path`.
    const char* baseName(const char* path)
    {
        const char* base = path;
        for (const char* p = path; *p; ++p)
            base = *p == '/' ? p + 1 : base;
        return base;
    }

    // Opens the directory holding the last component of `path` (O_PATH; relative to `at` unless
    // absolute) and points *base at that component. `path` is cut at its last '/' while the
    // directory is opened, and mended.
    int openDirectoryOf(int at, char* path, const char** base, int* dir)
    {
        *base = baseName(path);
        *dir = -1;
        if (!**base)
            return EISDIR; // "DIR/": a directory, not a file name
        char* slash = *base == path ? nullptr : path + (*base - path) - 1;
        const char* name = !slash ? "." : slash == path ? "/" : path;
        if (slash && slash != path)
            *slash = '\0';
        *dir = openat(at, name, O_PATH | O_DIRECTORY | O_CLOEXEC);
        const int error = *dir < 0 ? errno : 0;
        if (slash)
            *slash = '/';
        return error;
    }

    bool trustedOwner(uid_t owner) { return owner == 0 || owner == geteuid(); }

    // Why a node in a directory is not the user's to write through, or nullptr. In a sticky shared
    // directory (/tmp) anybody can make a node, but it is theirs: the owner is what tells.
    const char* distrust(const struct stat& dir, const struct stat& node)
    {
        if (!trustedOwner(dir.st_uid))
            return "it is in a directory of another user";
        if (trustedOwner(node.st_uid))
            return nullptr;
        if (S_ISLNK(node.st_mode))
            return "a symlink of another user leads there";
        return S_ISFIFO(node.st_mode) ? "a FIFO of another user" : "a node of another user";
    }

    bool onProc(int dir)
    {
        struct statfs fs { };
        return fstatfs(dir, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC;
    }

    // A name followed hop by hop, as the kernel would follow it, judging each hop on the way.
    struct Node {
        int dir = -1; // holds the node: the caller's descriptor, or one the walk opened
        char name[NAME_MAX + 1] = {};
        struct stat st { }; // lstat of the node; for /proc/self/fd/N, stat of what it stands for
        bool proc = false; // a descriptor of this process (/dev/stdout -> /proc/self/fd/1)
        const char* refusal = nullptr; // the first hop another user could have placed
    };

    void leaveDirectory(Node* node, int callersDir)
    {
        if (node->dir >= 0 && node->dir != callersDir)
            close(node->dir);
        node->dir = -1;
    }

    // Moves `node` to what its symlink points at. `link` is the symlink's text (modified).
    int followLink(Node* node, int callersDir, char* link)
    {
        const char* base = nullptr;
        int next = -1;
        if (int error = openDirectoryOf(node->dir, link, &base, &next))
            return error;
        leaveDirectory(node, callersDir);
        node->dir = next;
        return copyString(node->name, sizeof(node->name), base) ? 0 : ENAMETOOLONG;
    }

    // Follows node->name in node->dir to the node it finally names. A magic link of /proc
    // (/proc/self/fd/N, whose text is "pipe:[123]" or a deleted file's name) is followed by the
    // kernel, not by its text. Returns 0 or an errno value (ENOENT: nothing at the end).
    int follow(Node* node, int callersDir)
    {
        char link[PATH_MAX];
        for (int hop = 0; hop < kMaxHops; ++hop) {
            struct stat dir { };
            if (fstat(node->dir, &dir) != 0 || fstatat(node->dir, node->name, &node->st, AT_SYMLINK_NOFOLLOW) != 0)
                return errno;
            if (!node->refusal)
                node->refusal = distrust(dir, node->st);
            if (!S_ISLNK(node->st.st_mode))
                return 0;
            if (onProc(node->dir)) {
                node->proc = true;
                return fstatat(node->dir, node->name, &node->st, 0) == 0 ? 0 : errno;
            }
            const ssize_t n = readlinkat(node->dir, node->name, link, sizeof(link) - 1);
            if (n < 0)
                return errno;
            link[n] = '\0';
            if (int error = followLink(node, callersDir, link))
                return error;
        }
        return ELOOP;
    }

    bool isNode(mode_t mode) { return S_ISCHR(mode) || S_ISBLK(mode) || S_ISFIFO(mode) || S_ISSOCK(mode); }

    // Opens the judged node for writing and checks with fstat that it is the node judged (nobody
    // swapped it in between). O_NONBLOCK: a FIFO nobody reads is ENXIO at once, never a program hung
    // at its exit; cleared once open.
    // /proc/self/fd/N (/dev/stdout): this process's descriptor N itself, duplicated, so that the
    // profile and the program's own writes share one offset (a new open of a redirected stdout
    // starts at 0, and the program's buffered output, flushed after the collector's exit handler,
    // would land over the profile). -1 where the node is another directory's.
    int ownDescriptor(const Node& node);

    // A duplicate of the program's descriptor `n`: taken from the process's table with pidfd_getfd
    // (Linux 5.6), since the collector thread has a table of its own (collector/src/service_thread.cc)
    // in which the program's later descriptors do not exist; elsewhere, or on an older kernel, dup.
    int programDescriptor(int n)
    {
#if defined(SYS_pidfd_open) && defined(SYS_pidfd_getfd)
        const int process = int(syscall(SYS_pidfd_open, getpid(), 0));
        if (process >= 0) {
            const int fd = int(syscall(SYS_pidfd_getfd, process, n, 0)); // close-on-exec, as F_DUPFD_CLOEXEC
            close(process);
            if (fd >= 0 || errno == EBADF)
                return fd;
        }
#endif
        return fcntl(n, F_DUPFD_CLOEXEC, 0);
    }

    int ownDescriptor(const Node& node)
    {
        struct stat dir {
        }, self {};
        if (!node.proc || fstat(node.dir, &dir) != 0 || stat("/proc/self/fd", &self) != 0 || dir.st_dev != self.st_dev
            || dir.st_ino != self.st_ino)
            return -1;
        int n = 0;
        for (const char* c = node.name; *c; ++c) {
            if (*c < '0' || *c > '9' || n > 100'000'000)
                return -1;
            n = n * 10 + (*c - '0');
        }
        return programDescriptor(n);
    }

    // Opens the judged node for writing and checks with fstat that it is the node judged (nobody
    // swapped it in between). O_NONBLOCK: a FIFO nobody reads is ENXIO at once, never a program hung
    // at its exit; cleared once open.
    int openJudged(const Node& node, OutputFile* file)
    {
        if (node.refusal || S_ISBLK(node.st.st_mode)) {
            file->refusal = node.refusal ? node.refusal : "a block device is never written over";
            return EPERM;
        }
        const int flags = O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | (node.proc ? 0 : O_NOFOLLOW)
            | (S_ISREG(node.st.st_mode) ? O_APPEND : 0);
        const int own = ownDescriptor(node);
        const int fd = own >= 0 ? own : openat(node.dir, node.name, flags);
        if (fd < 0)
            return errno;
        struct stat st { };
        if (fstat(fd, &st) != 0 || st.st_dev != node.st.st_dev || st.st_ino != node.st.st_ino) {
            close(fd);
            file->refusal = "it was replaced while it was opened";
            return EPERM;
        }
        if (own < 0) // a duplicate shares the program's flags: they stay the program's
            fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        file->fd = fd;
        file->device = true;
        return 0;
    }

    // The device or FIFO the user named (or their stdout), opened into file->fd; 0 with no
    // descriptor when the name holds a file, a directory, a symlink to one of those or nothing.
    int openNamedDevice(OutputFile* file)
    {
        Node node;
        node.dir = file->dir;
        copyString(node.name, sizeof(node.name), baseName(file->path));
        int error = follow(&node, file->dir);
        const bool writeInto = !error && (isNode(node.st.st_mode) || (node.proc && !S_ISDIR(node.st.st_mode)));
        error = writeInto ? openJudged(node, file) : 0;
        leaveDirectory(&node, file->dir);
        return error;
    }

    // What a plain name may hold before a file replaces it: nothing, a file, a symlink (kept as a
    // backup, not followed), or - named by the user only - a node handled above.
    int checkPlainName(OutputFile* file)
    {
        struct stat st { };
        if (fstatat(file->dir, baseName(file->path), &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? 0 : errno;
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        if (isNode(st.st_mode)) {
            file->refusal = "a device or FIFO is at a name ppe made up";
            return EEXIST;
        }
        return 0;
    }

    uint64_t mixed(uint64_t x)
    {
        x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
        x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
        return x ^ (x >> 31);
    }

} // namespace

uint64_t unguessableBits()
{
    uint64_t bits = 0;
    if (getrandom(&bits, sizeof(bits), GRND_NONBLOCK) == ssize_t(sizeof(bits)))
        return bits;
    static uint64_t counter;
    const auto* seed = reinterpret_cast<const unsigned char*>(getauxval(AT_RANDOM));
    for (int i = 0; seed && i < 16; ++i)
        bits = bits * 131 + seed[i];
    timespec t {};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return mixed(bits ^ mixed(uint64_t(t.tv_nsec) + __atomic_add_fetch(&counter, 1, __ATOMIC_RELAXED)));
}

namespace {

    // ".ppe-" 16 hex digits ".tmp": short whatever the plain name's length.
    void randomName(char* out, size_t size)
    {
        static const char kHex[] = "0123456789abcdef";
        uint64_t bits = unguessableBits();
        char name[] = ".ppe-0000000000000000.tmp";
        for (int i = 0; i < 16; ++i, bits >>= 4)
            name[5 + i] = kHex[bits & 15];
        copyString(out, size, name);
    }

    void procFdPath(int fd, char* out, size_t size)
    {
        size_t used = 0;
        out[0] = '\0';
        // thread-self: the collector thread's descriptors are not the process's (service_thread.cc).
        append(out, size, &used, "/proc/thread-self/fd/");
        appendNumber(out, size, &used, unsigned(fd));
    }

    // An unnamed file in the directory: it leaves nothing behind if the process dies while writing.
    // Only where /proc lets it be linked in at commit (linkat with AT_EMPTY_PATH needs a capability).
    int openUnnamed(int dir)
    {
        const int fd = openat(dir, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
        if (fd < 0)
            return -1; // no O_TMPFILE (an old kernel, a file system without it): a named temporary
        char proc[48];
        procFdPath(fd, proc, sizeof(proc));
        if (access(proc, F_OK) == 0)
            return fd;
        close(fd);
        return -1;
    }

    int openTemporary(OutputFile* file)
    {
        file->fd = openUnnamed(file->dir);
        file->unnamed = file->fd >= 0;
        for (int attempt = 0; file->fd < 0 && attempt < kTemporaryTries; ++attempt) {
            randomName(file->tempName, sizeof(file->tempName));
            file->fd = openat(file->dir, file->tempName, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
            if (file->fd < 0 && errno != EEXIST)
                break;
        }
        if (file->fd >= 0)
            return 0;
        const int error = errno;
        file->tempName[0] = '\0';
        return error;
    }

    // Gives the unnamed file a random temporary name, to be renamed over the plain name.
    int nameUnnamed(OutputFile* file)
    {
        char proc[48];
        procFdPath(file->fd, proc, sizeof(proc));
        for (int attempt = 0; attempt < kTemporaryTries; ++attempt) {
            randomName(file->tempName, sizeof(file->tempName));
            if (linkat(AT_FDCWD, proc, file->dir, file->tempName, AT_SYMLINK_FOLLOW) == 0) {
                file->unnamed = false;
                return 0;
            }
            if (errno != EEXIST)
                break;
        }
        const int error = errno;
        file->tempName[0] = '\0';
        return error;
    }

    void closeDirectory(OutputFile* file)
    {
        if (file->dir >= 0)
            close(file->dir);
        file->dir = -1;
    }

    // NAME.~N~ -> N for `name`'s backups written as ppe writes them (1 to 9 digits, no leading
    // zero), else 0.
    unsigned long backupNumber(const char* entry, const char* name)
    {
        while (*name && *entry == *name) {
            ++entry;
            ++name;
        }
        if (*name || entry[0] != '.' || entry[1] != '~' || entry[2] == '0')
            return 0;
        unsigned long n = 0;
        int digits = 0;
        for (entry += 2; *entry >= '0' && *entry <= '9' && digits <= kMaxBackupDigits; ++entry, ++digits)
            n = n * 10 + static_cast<unsigned long>(*entry - '0');
        return digits && digits <= kMaxBackupDigits && entry[0] == '~' && !entry[1] ? n : 0;
    }

    // Calls f(name) for each entry of the directory `fd`, read with raw getdents64 so that it stays
    // signal-safe.
    template <typename F> void forEachEntry(int fd, F f)
    {
        alignas(8) char buffer[2048];
        lseek(fd, 0, SEEK_SET);
        for (long n; (n = syscall(SYS_getdents64, fd, buffer, sizeof(buffer))) > 0;) {
            for (long at = 0; at < n;) {
                const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
                f(entry->d_name);
                at += entry->d_reclen;
            }
        }
    }

    // One above the highest plausible backup number of `name` in `dir` (1 if none): the numbers
    // that count are at most kBackupSlack above the count of backups present, so that one file
    // `NAME.~99999999~` of anybody's stops nothing.
    unsigned long nextBackupNumber(int dir, const char* name)
    {
        const int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            return 1;
        unsigned long count = 0;
        forEachEntry(fd, [&](const char* entry) { count += backupNumber(entry, name) != 0; });
        unsigned long highest = 0;
        forEachEntry(fd, [&](const char* entry) {
            const unsigned long n = backupNumber(entry, name);
            highest = n <= count + kBackupSlack && n > highest ? n : highest;
        });
        close(fd);
        return highest + 1;
    }

    // A number of 9 digits nobody could have taken in advance: no directory holds enough planted
    // backups to fill them.
    unsigned long randomBackupNumber() { return 100'000'000 + unguessableBits() % 900'000'000; }

    int keepBackupIn(int dir, const char* name)
    {
        struct stat st { };
        if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
            return errno == ENOENT ? 0 : errno;
        if (S_ISDIR(st.st_mode))
            return EISDIR;
        char backup[NAME_MAX + 1];
        const unsigned long next = nextBackupNumber(dir, name);
        // The numbers after the highest plausible one, then random ones: another user's thousand
        // files after a plausible number must not stop the profile.
        for (int attempt = 0; attempt < kBackupTries + kTemporaryTries; ++attempt) {
            const unsigned long n = attempt < kBackupTries ? next + unsigned(attempt) : randomBackupNumber();
            size_t used = 0;
            backup[0] = '\0';
            if (!append(backup, sizeof(backup), &used, name) || !append(backup, sizeof(backup), &used, ".~")
                || !appendNumber(backup, sizeof(backup), &used, n) || !append(backup, sizeof(backup), &used, "~"))
                return ENAMETOOLONG;
            if (linkat(dir, name, dir, backup, 0) == 0) // a symlink is linked, not followed
                return 0;
            if (errno != EEXIST)
                return errno;
        }
        return EEXIST;
    }

} // namespace

int openOutput(const char* path, OutputFile* file, OutputName name)
{
    file->fd = -1;
    file->dir = -1;
    file->device = file->unnamed = false;
    file->refusal = nullptr;
    file->tempName[0] = '\0';
    if (!copyString(file->path, sizeof(file->path), path))
        return ENAMETOOLONG;
    const char* base = nullptr;
    int error = openDirectoryOf(AT_FDCWD, file->path, &base, &file->dir);
    if (!error && name == OutputName::Given)
        error = openNamedDevice(file);
    if (!error && file->fd < 0)
        error = checkPlainName(file);
    if (!error && file->fd < 0)
        error = openTemporary(file);
    if (error)
        closeDirectory(file);
    return error;
}

int keepNumberedBackup(const char* path)
{
    char copy[PATH_MAX];
    if (!copyString(copy, sizeof(copy), path))
        return ENAMETOOLONG;
    const char* base = nullptr;
    int dir = -1;
    int error = openDirectoryOf(AT_FDCWD, copy, &base, &dir);
    if (!error)
        error = keepBackupIn(dir, base);
    if (dir >= 0)
        close(dir);
    return error;
}

bool ownDirectoryAt(const char* path, bool* foreign)
{
    *foreign = false;
    char copy[PATH_MAX];
    if (!copyString(copy, sizeof(copy), path))
        return false;
    size_t n = 0;
    while (copy[n])
        ++n;
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = '\0';
    if (n == 1 && copy[0] == '/')
        copyString(copy, sizeof(copy), "/."); // the root directory, as a name in itself
    Node node;
    const char* base = nullptr;
    int dir = -1;
    bool own = false;
    if (!openDirectoryOf(AT_FDCWD, copy, &base, &dir) && copyString(node.name, sizeof(node.name), base)) {
        node.dir = dir;
        if (!follow(&node, dir) && S_ISDIR(node.st.st_mode)) {
            own = !node.refusal;
            *foreign = !own;
        }
        leaveDirectory(&node, dir);
    }
    if (dir >= 0)
        close(dir);
    return own;
}

int writeOutputFile(const char* path, const char* data, size_t size, OutputName name, const char** refusal)
{
    OutputFile file;
    int error = openOutput(path, &file, name);
    if (refusal)
        *refusal = file.refusal;
    while (!error && size) {
        const ssize_t n = ::write(file.fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n < 0 ? errno : EIO;
            abandonOutput(&file);
            return error;
        }
        data += n;
        size -= size_t(n);
    }
    return error ? error : commitOutput(&file);
}

void abandonOutput(OutputFile* file)
{
    if (file->fd >= 0)
        ::close(file->fd);
    file->fd = -1;
    if (file->tempName[0] && file->dir >= 0)
        unlinkat(file->dir, file->tempName, 0);
    file->tempName[0] = '\0';
    closeDirectory(file);
}

int commitOutput(OutputFile* file, bool replacing)
{
    int error = 0;
    if (!file->device && ::fsync(file->fd) != 0 && errno != EINVAL && errno != EROFS)
        error = errno;
    if (!error && file->unnamed)
        error = nameUnnamed(file);
    if (::close(file->fd) != 0 && !error)
        error = errno;
    file->fd = -1;
    if (file->device) {
        closeDirectory(file);
        return error;
    }
    const char* base = baseName(file->path);
    if (!error && !replacing)
        error = keepBackupIn(file->dir, base);
    if (!error && renameat(file->dir, file->tempName, file->dir, base) != 0)
        error = errno;
    if (error) {
        abandonOutput(file);
        return error;
    }
    file->tempName[0] = '\0';
    closeDirectory(file);
    return 0;
}

} // namespace ppe
