// loadDebugInfo: the DWARF read in a grandchild process, because LLVM 14's DWARF reader crashes
// on some damaged input (llvm-dwarfdump-14 does too: see test/data/debuginfo/README.md).
#include "in_process.h"
#include "serialize.h"

#include <cerrno>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

namespace ppe::debuginfo {

namespace {

    bool writeAll(int fd, std::string_view bytes)
    {
        for (size_t done = 0; done < bytes.size();) {
            const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return false;
            done += size_t(n);
        }
        return true;
    }

    std::string readAll(int fd)
    {
        std::string bytes;
        char buffer[1 << 16];
        for (;;) {
            const ssize_t n = read(fd, buffer, sizeof buffer);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return bytes;
            bytes.append(buffer, size_t(n));
        }
    }

    // Runs in the child: forks the reader and exits. The reader writes the result into `memory`
    // and then one byte into `done`; a crash closes `done` without that byte. Nobody waits for the
    // reader to free its memory: init reaps it.
    [[noreturn]] void startReader(const std::string& path, const Options& options, int memory, int done)
    {
        const pid_t reader = fork();
        if (reader != 0)
            _exit(reader < 0 ? 1 : 0);
        if (writeAll(memory, serialize(loadInProcess(path, options, true))))
            writeAll(done, "!");
        close(done);
        _exit(0);
    }

    // The result in `memory` once the child finished and the reader said it is complete.
    std::optional<Result<DebugInfo>> takeResult(pid_t child, int memory, int done)
    {
        int status = 0;
        while (child > 0 && waitpid(child, &status, 0) < 0 && errno == EINTR) { }
        const bool finished = child > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0 && readAll(done) == "!";
        struct stat st { };
        if (!finished || fstat(memory, &st) != 0 || st.st_size <= 0)
            return std::nullopt;
        void* bytes = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, memory, 0);
        if (bytes == MAP_FAILED)
            return std::nullopt;
        std::optional<Result<DebugInfo>> result
            = deserialize(std::string_view(static_cast<const char*>(bytes), size_t(st.st_size)));
        munmap(bytes, size_t(st.st_size));
        return result;
    }

} // namespace

Result<DebugInfo> loadDebugInfo(const std::string& path, const Options& options)
{
    if (!options.isolate)
        return loadInProcess(path, options, true);
    const int memory = memfd_create("ppe-debuginfo", MFD_CLOEXEC);
    int fds[2];
    if (memory < 0 || pipe2(fds, O_CLOEXEC) != 0) {
        if (memory >= 0)
            close(memory);
        return loadInProcess(path, options, true);
    }
    const pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        startReader(path, options, memory, fds[1]);
    }
    close(fds[1]);
    std::optional<Result<DebugInfo>> result = takeResult(child, memory, fds[0]);
    close(fds[0]);
    close(memory);
    if (result)
        return std::move(*result);
    Result<DebugInfo> symbols = loadInProcess(path, options, false);
    if (symbols.ok())
        symbols->warnings.push_back(path + ": reading its DWARF failed (damaged debug information?): symbols only");
    return symbols;
}

} // namespace ppe::debuginfo
