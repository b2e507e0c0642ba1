#include "ppe/formatter/json_writer.h"

#include <fmt/format.h>

#include <cmath>

namespace ppe::formatter {

namespace {

    bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

    // The length of the valid UTF-8 sequence at text[i] (RFC 3629: no overlong forms, no
    // surrogates, nothing above U+10FFFF), or 0 when the byte there starts none.
    size_t utf8Length(std::string_view text, size_t i)
    {
        const auto byte = [&](size_t k) { return i + k < text.size() ? (unsigned char)text[i + k] : 0; };
        const unsigned char c = byte(0);
        if (c < 0x80)
            return 1;
        size_t length = 0;
        unsigned char low = 0x80, high = 0xBF; // the allowed range of the second byte
        if (c >= 0xC2 && c <= 0xDF)
            length = 2;
        else if (c >= 0xE0 && c <= 0xEF) {
            length = 3;
            low = c == 0xE0 ? 0xA0 : 0x80;
            high = c == 0xED ? 0x9F : 0xBF;
        } else if (c >= 0xF0 && c <= 0xF4) {
            length = 4;
            low = c == 0xF0 ? 0x90 : 0x80;
            high = c == 0xF4 ? 0x8F : 0xBF;
        } else
            return 0;
        if (byte(1) < low || byte(1) > high)
            return 0;
        for (size_t k = 2; k < length; ++k) {
            if (!continuation(byte(k)))
                return 0;
        }
        return length;
    }

    void escapeAscii(std::string& out, char c)
    {
        switch (c) {
        case '"':
            out += "\\\"";
            return;
        case '\\':
            out += "\\\\";
            return;
        case '\n':
            out += "\\n";
            return;
        case '\r':
            out += "\\r";
            return;
        case '\t':
            out += "\\t";
            return;
        case '\b':
            out += "\\b";
            return;
        case '\f':
            out += "\\f";
            return;
        default:
            if ((unsigned char)c < 0x20)
                out += fmt::format("\\u{:04x}", unsigned(c));
            else
                out += c;
        }
    }

} // namespace

std::string jsonString(std::string_view text)
{
    std::string out;
    out.reserve(text.size() + 2);
    out += '"';
    for (size_t i = 0; i < text.size();) {
        const size_t length = utf8Length(text, i);
        if (length == 0) {
            out += "\\ufffd";
            ++i;
        } else if (length == 1) {
            escapeAscii(out, text[i++]);
        } else {
            out.append(text.substr(i, length));
            i += length;
        }
    }
    out += '"';
    return out;
}

std::string jsonNumber(double value)
{
    if (!std::isfinite(value))
        return "null";
    return fmt::format("{}", value);
}

void JsonWriter::key(std::string_view name)
{
    newItem();
    m_out += jsonString(name);
    m_out += ": ";
    m_afterKey = true;
}

void JsonWriter::newItem()
{
    if (m_afterKey) {
        m_afterKey = false;
        return;
    }
    if (m_empty.empty())
        return;
    if (!m_empty.back())
        m_out += ',';
    m_empty.back() = false;
    m_out += '\n';
    m_out.append(2 * m_empty.size(), ' ');
}

void JsonWriter::scalar(std::string_view text)
{
    newItem();
    m_out += text;
}

void JsonWriter::open(char bracket)
{
    newItem();
    m_out += bracket;
    m_empty.push_back(true);
}

void JsonWriter::close(char bracket)
{
    const bool empty = m_empty.back();
    m_empty.pop_back();
    if (!empty) {
        m_out += '\n';
        m_out.append(2 * m_empty.size(), ' ');
    }
    m_out += bracket;
    if (m_empty.empty())
        m_out += '\n';
}

} // namespace ppe::formatter
