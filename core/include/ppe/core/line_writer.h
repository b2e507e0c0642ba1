// A text writer for signal handlers: a fixed buffer, numbers formatted by hand, and write(2) in a
// loop that retries on EINTR (after heaptrack's linewriter and gperftools' profiledata).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ppe {

// Everything here is safe to call from a signal handler; a LineWriter is not re-entrant.
class LineWriter {
public:
    // Buffers in [buffer, buffer + size): the caller chooses where (stack, static, mapping).
    LineWriter(int fd, char* buffer, size_t size)
        : m_fd(fd)
        , m_buf(buffer)
        , m_size(size)
    {
    }
    LineWriter(const LineWriter&) = delete;
    LineWriter& operator=(const LineWriter&) = delete;

    LineWriter& str(const char* text);
    LineWriter& str(const char* text, size_t length);
    LineWriter& ch(char c);
    // A C-style quoted string: "..." with \\ \" \n \t and \xHH for other bytes outside 0x20-0x7e.
    LineWriter& quoted(const char* text, size_t length);
    LineWriter& quoted(const char* text);
    LineWriter& dec(uint64_t value);
    LineWriter& sdec(int64_t value);
    LineWriter& hex(uint64_t value); // 0x prefix, lower case
    LineWriter& hexBytes(const uint8_t* bytes, size_t length); // no prefix, two digits a byte
    // value / 10^decimals with exactly `decimals` digits after the point (decimals <= 9).
    LineWriter& fixed(uint64_t value, unsigned decimals);
    LineWriter& endl() { return ch('\n'); }

    // Writes out what is buffered. Returns false if any write so far has failed.
    bool flush();
    bool ok() const { return !m_failed; }
    int error() const { return m_errno; }

private:
    void put(const char* data, size_t length);

    int m_fd;
    size_t m_used = 0;
    bool m_failed = false;
    int m_errno = 0;
    char* m_buf;
    size_t m_size;
};

} // namespace ppe
