// Hex helpers of the GDB remote serial protocol: register values, console output and numbers
// travel as hex digits.
#pragma once

#include "ppe/support/hex_digit.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ppe::gdbremote {

using ppe::hexDigit; // the value of one hex digit, or -1
bool isHex(std::string_view text);
std::string toHex(std::string_view bytes);
// Hex digits to bytes; nothing for an odd length or a non-hex digit.
std::optional<std::string> fromHex(std::string_view hex);
// A big-endian hex number as written in packets ("1f", "a0b1"); nothing if empty, not hex, or
// wider than 64 bits.
std::optional<std::uint64_t> parseHexNumber(std::string_view hex);
// Register bytes as they travel (target byte order) to a number; nothing beyond 8 bytes.
std::optional<std::uint64_t> registerValue(std::string_view bytes, bool bigEndian);
// The other way: `value` as `bytes` bytes in the target's byte order.
std::string registerBytes(std::uint64_t value, std::size_t bytes, bool bigEndian);
std::string hexNumber(std::uint64_t value);

} // namespace ppe::gdbremote
