#include "numbers.h"

#include <charconv>

namespace ppe::mapparse {

namespace {

    std::optional<uint64_t> parseWhole(std::string_view word, int base)
    {
        if (word.empty() || word.front() == '-' || word.front() == '+')
            return std::nullopt;
        uint64_t value = 0;
        const char* end = word.data() + word.size();
        const auto [ptr, ec] = std::from_chars(word.data(), end, value, base);
        if (ec != std::errc() || ptr != end)
            return std::nullopt;
        return value;
    }

    bool hasHexPrefix(std::string_view word)
    {
        return word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
    }

} // namespace

std::optional<uint64_t> parsePrefixedHex(std::string_view word)
{
    if (!hasHexPrefix(word))
        return std::nullopt;
    return parseWhole(word.substr(2), 16);
}

std::optional<uint64_t> parseBareHex(std::string_view word) { return parseWhole(word, 16); }

std::optional<uint64_t> parseShowbaseHex(std::string_view word)
{
    if (word == "0")
        return 0;
    return parsePrefixedHex(word);
}

std::optional<uint64_t> parseDecimal(std::string_view word) { return parseWhole(word, 10); }

} // namespace ppe::mapparse
