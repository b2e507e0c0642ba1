// Small scanning helpers over string_view: numbers through std::from_chars (never throwing),
// whitespace trimming and token splitting.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ppe::listparse {

inline bool isBlank(char c) { return c == ' ' || c == '\t'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isHexDigit(char c) { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

inline std::string_view trimLeft(std::string_view s)
{
    while (!s.empty() && isBlank(s.front()))
        s.remove_prefix(1);
    return s;
}

inline std::string_view trimRight(std::string_view s)
{
    while (!s.empty() && isBlank(s.back()))
        s.remove_suffix(1);
    return s;
}

inline std::string_view trim(std::string_view s) { return trimRight(trimLeft(s)); }

// The whole of `s` as a number in `base`; nullopt when empty, partly numeric or out of range.
template <class T> std::optional<T> parseNumber(std::string_view s, int base = 10)
{
    T value {};
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), value, base);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size())
        return std::nullopt;
    return value;
}

// Removes and returns the leading run of characters up to a blank (or the end).
inline std::string_view takeToken(std::string_view& s)
{
    s = trimLeft(s);
    size_t end = 0;
    while (end < s.size() && !isBlank(s[end]))
        ++end;
    std::string_view token = s.substr(0, end);
    s.remove_prefix(end);
    return token;
}

} // namespace ppe::listparse
