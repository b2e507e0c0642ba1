#include "ppe/profile/input_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

namespace ppe {

namespace {

    constexpr size_t kChunkBytes = 64 * 1024;
    constexpr size_t kBinaryCheckBytes = 4096;

    Error ioError(const std::string& path, const std::string& what, int error)
    {
        return Error { path, 0, what + ": " + std::strerror(error) };
    }

} // namespace

std::string fileKindOf(unsigned mode)
{
    switch (mode & S_IFMT) {
    case S_IFREG:
        return "a regular file";
    case S_IFDIR:
        return "a directory";
    case S_IFIFO:
        return "a FIFO";
    case S_IFCHR:
        return "a character device";
    case S_IFBLK:
        return "a block device";
    case S_IFSOCK:
        return "a socket";
    }
    return "not a regular file";
}

Result<InputFile> InputFile::open(const std::string& path, InputOrigin origin, const char* what)
{
    // O_NONBLOCK: opening a FIFO without a writer returns at once; O_NOCTTY: a terminal named here
    // never becomes ours.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return ioError(path, what ? std::string("cannot open ") + what : "cannot open for reading", errno);
    struct stat st { };
    if (fstat(fd, &st) != 0) {
        const int error = errno;
        ::close(fd);
        return ioError(path, "cannot read", error);
    }
    const bool regular = S_ISREG(st.st_mode);
    if (S_ISDIR(st.st_mode) || (!regular && origin != InputOrigin::Named)) {
        ::close(fd);
        return Error { path, 0,
            S_ISDIR(st.st_mode) ? "a directory, not a file"
                                : fileKindOf(st.st_mode)
                    + ", not a regular file: only read when named on the command line, never found in a directory "
                      "or by a pattern" };
    }
    return InputFile(fd, path, regular, regular ? uint64_t(st.st_size) : 0);
}

InputFile::InputFile(int fd, std::string path, bool regular, uint64_t size)
    : m_fd(fd)
    , m_path(std::move(path))
    , m_regular(regular)
    , m_size(size)
{
}

InputFile::InputFile(InputFile&& other) noexcept
    : m_fd(std::exchange(other.m_fd, -1))
    , m_path(std::move(other.m_path))
    , m_regular(other.m_regular)
    , m_size(other.m_size)
{
}

InputFile::~InputFile()
{
    if (m_fd >= 0)
        ::close(m_fd);
}

// A FIFO, pipe or device: waits up to kInputIdleSeconds for data (or for a FIFO's writer to come
// and go); false when nothing came.
bool InputFile::waitForData()
{
    pollfd p { m_fd, POLLIN, 0 };
    int rc;
    do
        rc = ::poll(&p, 1, kInputIdleSeconds * 1000);
    while (rc < 0 && errno == EINTR);
    return rc > 0;
}

Result<size_t> InputFile::read(char* buffer, size_t size)
{
    for (bool waited = false;;) {
        const ssize_t n = ::read(m_fd, buffer, size);
        if (n > 0)
            return size_t(n);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN)
            return ioError(m_path, "cannot read", errno);
        // 0 from a FIFO whose writer has not come yet, or EAGAIN: wait once, then believe the end.
        if (m_regular || (n == 0 && waited))
            return size_t(0);
        if (!waitForData())
            return Error { m_path, 0,
                "nothing to read for " + std::to_string(kInputIdleSeconds) + " s (a FIFO nobody writes to?)" };
        waited = n == 0;
    }
}

InputLines::InputLines(InputFile& file, size_t maxLineBytes)
    : m_file(file)
    , m_maxLineBytes(maxLineBytes)
{
}

// The next chunk after the line taken; false at the end (or an error, in `error`).
bool InputLines::fill(Error* error)
{
    m_chunk.resize(kChunkBytes);
    m_at = 0;
    auto n = m_file.read(m_chunk.data(), m_chunk.size());
    if (!n) {
        *error = n.error();
        m_chunk.clear();
        return false;
    }
    m_chunk.resize(*n);
    return *n > 0;
}

Result<bool> InputLines::next(std::string& line, bool& complete)
{
    line.clear();
    complete = false;
    if (m_ended)
        return false;
    for (;;) {
        if (m_at == m_chunk.size()) {
            Error error;
            if (!fill(&error)) {
                m_ended = true;
                if (!error.message.empty())
                    return Error { error.file, m_number + 1, error.message };
                if (line.empty())
                    return false;
                ++m_number;
                return true; // the last line, without its '\n'
            }
        }
        const size_t newline = m_chunk.find('\n', m_at);
        const size_t end = newline == std::string::npos ? m_chunk.size() : newline;
        line.append(m_chunk, m_at, end - m_at);
        m_at = newline == std::string::npos ? end : end + 1;
        if (line.size() > m_maxLineBytes)
            return Error { m_file.path(), m_number + 1,
                "a line longer than " + std::to_string(m_maxLineBytes) + " bytes (the limit of a line)" };
        if (newline != std::string::npos) {
            ++m_number;
            complete = true;
            return true;
        }
    }
}

Result<std::string> readInputText(const std::string& path, InputOrigin origin, uint64_t maxBytes, const char* what)
{
    auto file = InputFile::open(path, origin, what);
    if (!file)
        return file.error();
    const std::string tooLong
        = "longer than " + std::to_string(maxBytes) + " bytes (the limit of a " + std::string(what) + ")";
    if (file->regular() && file->size() > maxBytes)
        return Error { path, 0, tooLong };
    std::string text;
    std::string chunk(kChunkBytes, '\0');
    for (;;) {
        auto n = file->read(chunk.data(), chunk.size());
        if (!n)
            return n.error();
        if (*n == 0)
            return text;
        if (text.size() + *n > maxBytes)
            return Error { path, 0, tooLong };
        const bool head = text.size() < kBinaryCheckBytes;
        text.append(chunk, 0, *n);
        if (head && text.find('\0') < kBinaryCheckBytes)
            return Error { path, 0, "binary data, not a " + std::string(what) };
    }
}

std::string readInputPrefix(const std::string& path, InputOrigin origin, size_t count)
{
    auto file = InputFile::open(path, origin);
    if (!file)
        return "";
    std::string text(count, '\0');
    size_t got = 0;
    while (got < count) {
        auto n = file->read(text.data() + got, count - got);
        if (!n || *n == 0)
            break;
        got += *n;
    }
    text.resize(got);
    return text;
}

} // namespace ppe
