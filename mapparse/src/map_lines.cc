#include "map_lines.h"

namespace ppe::mapparse {

namespace {

    bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

    std::string_view withoutCarriageReturn(std::string_view line)
    {
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        return line;
    }

} // namespace

std::vector<MapLine> splitLines(std::string_view text)
{
    std::vector<MapLine> lines;
    std::size_t number = 1;
    while (!text.empty()) {
        const std::size_t end = text.find('\n');
        lines.push_back({ number++, withoutCarriageReturn(text.substr(0, end)) });
        if (end == std::string_view::npos)
            break;
        text.remove_prefix(end + 1);
    }
    return lines;
}

std::vector<std::string_view> words(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i]))
            ++i;
        const std::size_t begin = i;
        while (i < line.size() && !isSpace(line[i]))
            ++i;
        if (i > begin)
            out.push_back(line.substr(begin, i - begin));
    }
    return out;
}

std::size_t leadingSpaces(std::string_view line)
{
    std::size_t n = 0;
    while (n < line.size() && line[n] == ' ')
        ++n;
    return n;
}

std::string_view trim(std::string_view s)
{
    while (!s.empty() && isSpace(s.front()))
        s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back()))
        s.remove_suffix(1);
    return s;
}

bool isBlank(std::string_view s) { return trim(s).empty(); }

} // namespace ppe::mapparse
