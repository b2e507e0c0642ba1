#include "ppe/core/line_writer.h"

#include <cerrno>
#include <unistd.h>

namespace ppe {

static size_t length(const char* text)
{
    size_t n = 0;
    while (text[n])
        ++n;
    return n;
}

static bool writeAll(int fd, const char* data, size_t size, int* error)
{
    while (size) {
        const ssize_t n = ::write(fd, data, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            *error = n < 0 ? errno : EIO;
            return false;
        }
        data += n;
        size -= size_t(n);
    }
    return true;
}

void LineWriter::put(const char* data, size_t size)
{
    while (size && !m_failed) {
        if (m_used == m_size)
            flush();
        size_t room = m_size - m_used;
        size_t n = size < room ? size : room;
        for (size_t i = 0; i < n; ++i)
            m_buf[m_used + i] = data[i];
        m_used += n;
        data += n;
        size -= n;
    }
}

bool LineWriter::flush()
{
    if (!m_failed && m_used && !writeAll(m_fd, m_buf, m_used, &m_errno))
        m_failed = true;
    m_used = 0;
    return !m_failed;
}

LineWriter& LineWriter::str(const char* text, size_t size)
{
    put(text, size);
    return *this;
}

LineWriter& LineWriter::str(const char* text) { return str(text, length(text)); }

LineWriter& LineWriter::ch(char c) { return str(&c, 1); }

static const char kHexDigits[] = "0123456789abcdef";

LineWriter& LineWriter::quoted(const char* text, size_t size)
{
    ch('"');
    for (size_t i = 0; i < size; ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            const char escaped[2] = { '\\', char(c) };
            str(escaped, 2);
        } else if (c == '\n') {
            str("\\n", 2);
        } else if (c == '\t') {
            str("\\t", 2);
        } else if (c < 0x20 || c > 0x7e) {
            const char escaped[4] = { '\\', 'x', kHexDigits[c >> 4], kHexDigits[c & 15] };
            str(escaped, 4);
        } else {
            ch(char(c));
        }
    }
    return ch('"');
}

LineWriter& LineWriter::quoted(const char* text) { return quoted(text, length(text)); }

LineWriter& LineWriter::dec(uint64_t value)
{
    char digits[20];
    size_t n = 0;
    do {
        digits[sizeof(digits) - 1 - n++] = char('0' + value % 10);
        value /= 10;
    } while (value);
    return str(digits + sizeof(digits) - n, n);
}

LineWriter& LineWriter::sdec(int64_t value)
{
    if (value >= 0)
        return dec(uint64_t(value));
    ch('-');
    return dec(uint64_t(0) - uint64_t(value));
}

LineWriter& LineWriter::hex(uint64_t value)
{
    char digits[16];
    size_t n = 0;
    do {
        digits[sizeof(digits) - 1 - n++] = kHexDigits[value & 15];
        value >>= 4;
    } while (value);
    str("0x", 2);
    return str(digits + sizeof(digits) - n, n);
}

LineWriter& LineWriter::hexBytes(const uint8_t* bytes, size_t size)
{
    for (size_t i = 0; i < size; ++i) {
        const char pair[2] = { kHexDigits[bytes[i] >> 4], kHexDigits[bytes[i] & 15] };
        str(pair, 2);
    }
    return *this;
}

LineWriter& LineWriter::fixed(uint64_t value, unsigned decimals)
{
    uint64_t scale = 1;
    for (unsigned i = 0; i < decimals; ++i)
        scale *= 10;
    dec(value / scale);
    if (!decimals)
        return *this;
    ch('.');
    uint64_t fraction = value % scale;
    char digits[9];
    for (unsigned i = decimals; i-- > 0;) {
        digits[i] = char('0' + fraction % 10);
        fraction /= 10;
    }
    return str(digits, decimals);
}

} // namespace ppe
