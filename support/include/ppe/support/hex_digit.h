// One hex digit's value: shared by the .ppe reader's escapes and the GDB remote protocol client.
#pragma once

namespace ppe {

// The value of one hex digit (either case), or -1.
constexpr int hexDigit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

} // namespace ppe
