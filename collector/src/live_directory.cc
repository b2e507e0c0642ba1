#include "live_directory.h"

#include "initially.h"
#include "ppe/core/output_file.h"
#include "service_thread.h"

#include <climits>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ppe {

namespace {

    struct Held {
        Initially<int, -1> dir; // in the table of collector thread `tid` only
        pid_t tid = 0;
        dev_t device = 0; // the live file's
        ino_t inode = 0;
        char path[PATH_MAX] = {}; // the live file it was held for
    };

    Held g_held;

    pid_t currentTid() { return pid_t(syscall(SYS_gettid)); }

    // The file name of `path` (after its last '/'), with its directory into `dir` ("." for none).
    const char* splitPath(const char* path, char* dir)
    {
        const char* slash = std::strrchr(path, '/');
        if (!slash) {
            copyString(dir, PATH_MAX, ".");
            return path;
        }
        const size_t length = slash == path ? 1 : size_t(slash - path);
        copyString(dir, length + 1 < PATH_MAX ? length + 1 : PATH_MAX, path);
        return slash + 1;
    }

} // namespace

void holdLiveDirectory(const char* livePath)
{
    const pid_t tid = currentTid();
    if (!ownDescriptorTable() || !livePath[0] || (g_held.tid == tid && std::strcmp(g_held.path, livePath) == 0))
        return;
    if (g_held.tid == tid && g_held.dir >= 0)
        close(g_held.dir); // this thread's own: the live file changed
    g_held = Held {};
    char dir[PATH_MAX];
    const char* base = splitPath(livePath, dir);
    const int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    struct stat st { };
    if (fd < 0)
        return;
    if (fstatat(fd, base, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return;
    }
    g_held.dir = fd;
    g_held.tid = tid;
    g_held.device = st.st_dev;
    g_held.inode = st.st_ino;
    copyString(g_held.path, sizeof(g_held.path), livePath);
}

bool removeHeldLiveFile(const char* livePath)
{
    if (!onServiceThread() || g_held.dir < 0 || g_held.tid != currentTid() || std::strcmp(g_held.path, livePath) != 0)
        return false;
    char dir[PATH_MAX];
    const char* base = splitPath(livePath, dir);
    struct stat st { };
    const bool same = fstatat(g_held.dir, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == g_held.device
        && st.st_ino == g_held.inode;
    const bool removed = same && unlinkat(g_held.dir, base, 0) == 0;
    close(g_held.dir);
    g_held = Held {};
    return removed;
}

} // namespace ppe
