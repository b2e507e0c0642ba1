// Numbers as the linkers print them. Every parser takes the whole word or fails: "0x1f" is a
// number, "0x1fz" and "" are not.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ppe::mapparse {

// "0x00000000000011b0" (GNU ld, gold).
std::optional<uint64_t> parsePrefixedHex(std::string_view word);

// "11b0" (lld).
std::optional<uint64_t> parseBareHex(std::string_view word);

// "0x11b0" or "0" (mold, which prints with std::showbase: zero has no prefix).
std::optional<uint64_t> parseShowbaseHex(std::string_view word);

// "282" (mold sizes).
std::optional<uint64_t> parseDecimal(std::string_view word);

} // namespace ppe::mapparse
