// The collector's only voice: one line to stderr with write(2), prefixed "ppe: ".
#pragma once

#include <cstdint>
#include <initializer_list>

namespace ppe {

// One piece of a message: text, a decimal or a 0x-hex number.
struct Part {
    enum Kind { Text, Dec, Hex } kind;
    const char* text;
    uint64_t number;
    Part(const char* t)
        : kind(Text)
        , text(t)
        , number(0)
    {
    }
    static Part dec(uint64_t v) { return { Dec, v }; }
    static Part hex(uint64_t v) { return { Hex, v }; }

private:
    Part(Kind k, uint64_t v)
        : kind(k)
        , text(nullptr)
        , number(v)
    {
    }
};

// Writes "ppe: " followed by the parts and a newline to stderr. Safe to call from a signal handler.
void say(std::initializer_list<Part> parts);

} // namespace ppe
