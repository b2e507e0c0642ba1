// PPE's rules for its environment variables: each value must be a positive decimal integer;
// any error keeps the default (and the caller says so once).
#pragma once

#include <cstdint>

namespace ppe {

enum class ValueError {
    None,
    Empty, // "" or only blanks
    NotDecimal, // a character other than 0-9 (signs, spaces, hex, suffixes)
    Zero, // 0 where a positive value is required
    TooSmall, // below the allowed minimum
    TooLarge, // above the allowed maximum (or overflows 64 bits)
};

// Parses `text` as a decimal integer in [minimum, maximum]. On success stores it in *out and
// returns ValueError::None; otherwise *out is untouched. Safe to call from a signal handler.
ValueError parseDecimal(const char* text, uint64_t minimum, uint64_t maximum, uint64_t* out);

// A short lower-case description of the error, e.g. "not a positive decimal integer".
const char* describe(ValueError error);

} // namespace ppe
