#include "ppe/core/env_value.h"

namespace ppe {

ValueError parseDecimal(const char* text, uint64_t minimum, uint64_t maximum, uint64_t* out)
{
    const char* rest = text;
    while (rest && *rest == ' ')
        ++rest;
    if (!rest || !*rest)
        return ValueError::Empty;
    uint64_t value = 0;
    bool overflow = false;
    for (const char* p = text; *p; ++p) {
        if (*p < '0' || *p > '9')
            return ValueError::NotDecimal;
        const uint64_t digit = uint64_t(*p - '0');
        if (value > (UINT64_MAX - digit) / 10)
            overflow = true;
        else
            value = value * 10 + digit;
    }
    if (overflow || value > maximum)
        return ValueError::TooLarge;
    if (value < minimum)
        return value == 0 ? ValueError::Zero : ValueError::TooSmall;
    *out = value;
    return ValueError::None;
}

const char* describe(ValueError error)
{
    switch (error) {
    case ValueError::None:
        return "valid";
    case ValueError::Empty:
        return "empty value";
    case ValueError::NotDecimal:
        return "not a positive decimal integer";
    case ValueError::Zero:
        return "must be positive";
    case ValueError::TooSmall:
        return "too small";
    case ValueError::TooLarge:
        return "too large";
    }
    return "invalid";
}

} // namespace ppe
