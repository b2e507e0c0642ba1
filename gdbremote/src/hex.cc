#include "ppe/gdbremote/hex.h"

namespace ppe::gdbremote {

bool isHex(std::string_view text)
{
    for (char c : text) {
        if (hexDigit(c) < 0)
            return false;
    }
    return true;
}

std::string toHex(std::string_view bytes)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    out.reserve(bytes.size() * 2);
    for (unsigned char b : bytes) {
        out.push_back(digits[b >> 4]);
        out.push_back(digits[b & 15]);
    }
    return out;
}

std::optional<std::string> fromHex(std::string_view hex)
{
    if (hex.size() % 2 || !isHex(hex))
        return std::nullopt;
    std::string out;
    out.reserve(hex.size() / 2);
    for (std::size_t i = 0; i < hex.size(); i += 2)
        out.push_back(static_cast<char>(hexDigit(hex[i]) * 16 + hexDigit(hex[i + 1])));
    return out;
}

std::optional<std::uint64_t> parseHexNumber(std::string_view hex)
{
    if (hex.empty() || !isHex(hex))
        return std::nullopt;
    while (hex.size() > 1 && hex.front() == '0')
        hex.remove_prefix(1);
    if (hex.size() > 16)
        return std::nullopt;
    std::uint64_t value = 0;
    for (char c : hex)
        value = value * 16 + static_cast<std::uint64_t>(hexDigit(c));
    return value;
}

std::optional<std::uint64_t> registerValue(std::string_view bytes, bool bigEndian)
{
    if (bytes.empty() || bytes.size() > 8)
        return std::nullopt;
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        auto b = static_cast<unsigned char>(bigEndian ? bytes[i] : bytes[bytes.size() - 1 - i]);
        value = value << 8 | b;
    }
    return value;
}

std::string registerBytes(std::uint64_t value, std::size_t bytes, bool bigEndian)
{
    std::string out(bytes, '\0');
    for (std::size_t i = 0; i < bytes && i < 8; ++i)
        out[bigEndian ? bytes - 1 - i : i] = char((value >> (8 * i)) & 0xff);
    return out;
}

std::string hexNumber(std::uint64_t value)
{
    static const char digits[] = "0123456789abcdef";
    std::string out;
    do {
        out.insert(out.begin(), digits[value & 15]);
        value >>= 4;
    } while (value);
    return out;
}

} // namespace ppe::gdbremote
