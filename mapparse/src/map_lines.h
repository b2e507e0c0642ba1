// The text of a map as numbered lines, and the small lexical helpers every dialect shares.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

namespace ppe::mapparse {

struct MapLine {
    std::size_t number; // 1-based, for messages
    std::string_view text; // without the line end (\n or \r\n)
};

// Splits `text` at '\n'; a last line without '\n' is kept.
std::vector<MapLine> splitLines(std::string_view text);

// Whitespace-separated words of `line`.
std::vector<std::string_view> words(std::string_view line);

std::size_t leadingSpaces(std::string_view line);
std::string_view trim(std::string_view s);
bool isBlank(std::string_view s);

} // namespace ppe::mapparse
