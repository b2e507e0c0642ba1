// What every dialect's parser hands on: each input section the map places, code or not, with
// the object it came from. modules.cc decides which of them make modules.
#pragma once

#include "ppe/support/result.h"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace ppe::mapparse {

struct InputSection {
    std::string_view path; // object or archive member as printed, e.g. "libx.a(y.o)"
    std::string_view name; // e.g. ".text.startup.main"
    std::string_view outputSection; // e.g. ".text"
    uint64_t address = 0;
    uint64_t size = 0;
    std::size_t line = 0;
};

using InputSections = std::vector<InputSection>;

// "FILE:LINE: MESSAGE" for a problem in the map.
inline Error mapError(std::string_view fileName, std::size_t line, std::string message)
{
    return Error { std::string(fileName), line, std::move(message) };
}

} // namespace ppe::mapparse
