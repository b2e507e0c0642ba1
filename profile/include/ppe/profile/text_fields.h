// Tokens of the .ppe line syntax: bare words, decimal and 0x-hex numbers, fixed-point numbers,
// C-style quoted strings.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ppe {

// Splits a line into tokens; a quoted token is returned unescaped. nullopt on a malformed quote.
std::optional<std::vector<std::string>> splitFields(std::string_view line);

std::optional<uint64_t> parseUnsigned(std::string_view text); // decimal
std::optional<uint64_t> parseHex(std::string_view text); // 0x...
std::optional<double> parseFixed(std::string_view text); // 123 or 123.456
std::optional<int64_t> parseUtc(std::string_view text); // YYYY-MM-DDTHH:MM:SSZ
// Lower-case hex digits of even length, or "none" (returns "").
std::optional<std::string> parseBuildId(std::string_view text);

} // namespace ppe
