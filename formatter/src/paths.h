// File names as the formatter takes them apart (internal to formatter/).
#pragma once

#include <string>
#include <string_view>

namespace ppe::formatter {

// "dir/sub/name.c" -> "name.c".
inline std::string_view baseName(std::string_view path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// "dir/sub/name.c" -> "dir/sub"; "name.c" -> "."; "/name.c" -> "/".
inline std::string directoryOf(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

} // namespace ppe::formatter
