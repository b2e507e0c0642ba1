#include "ld_memory_map.h"

#include "numbers.h"

#include <algorithm>

namespace ppe::mapparse {

namespace {

    // One statement of the memory map; a name too long for its column is printed alone and its
    // numbers go on the next line, which this joins back.
    struct Statement {
        std::size_t indent = 0; // 0: output section (or LOAD, OUTPUT(...)), 1: input section or pattern
        std::string_view name;
        std::string_view rest; // "ADDRESS SIZE FILE" for an input section
        std::size_t line = 0; // of `rest`
    };

    bool isAddressAndSize(const MapLine& line)
    {
        const auto w = words(line.text);
        return leadingSpaces(line.text) >= 2 && w.size() >= 2 && parsePrefixedHex(w[0]) && parsePrefixedHex(w[1]);
    }

    bool isWrapped(const std::vector<MapLine>& lines, std::size_t i)
    {
        return words(lines[i].text).size() == 1 && i + 1 < lines.size() && isAddressAndSize(lines[i + 1]);
    }

    std::string_view afterFirstWord(std::string_view text)
    {
        text = trim(text);
        const std::size_t end = text.find_first_of(" \t");
        return end == std::string_view::npos ? std::string_view() : trim(text.substr(end));
    }

    // Reads the statement starting at lines[i]; advances i past a joined continuation line.
    Statement readStatement(const std::vector<MapLine>& lines, std::size_t& i)
    {
        const MapLine& line = lines[i];
        Statement s { leadingSpaces(line.text), words(line.text).front(), afterFirstWord(line.text), line.number };
        if (!isWrapped(lines, i))
            return s;
        ++i;
        s.rest = trim(lines[i].text);
        s.line = lines[i].number;
        return s;
    }

    bool isStatementLine(const MapLine& line) { return leadingSpaces(line.text) <= 1 && !isBlank(line.text); }

    // Patterns ("*(.text .text.*)"), "*fill*" and gold's "** fill", "** PLT", ... are no input sections.
    bool isPattern(const Statement& s) { return s.name.starts_with('*'); }

    struct Cursor {
        std::string_view outputSection;
        InputSections sections;
    };

    // "ADDRESS SIZE FILE": a statement whose rest does not start with an address is a pattern
    // statement of a linker script ("crtbegin.o(.ctors)") and is skipped.
    Result<bool> addInputSection(const Statement& s, Cursor& cursor, std::string_view fileName)
    {
        const auto w = words(s.rest);
        if (w.empty() || !parsePrefixedHex(w[0]))
            return false;
        const auto address = parsePrefixedHex(w[0]);
        const auto size = w.size() >= 2 ? parsePrefixedHex(w[1]) : std::nullopt;
        if (!size)
            return mapError(fileName, s.line, "cannot parse input section line (expected ADDRESS SIZE FILE)");
        if (*size > UINT64_MAX - *address)
            return mapError(fileName, s.line, "input section extends beyond the address space");
        const std::string_view path = afterFirstWord(afterFirstWord(s.rest));
        if (path.empty())
            return false;
        cursor.sections.push_back({ path, s.name, cursor.outputSection, *address, *size, s.line });
        return true;
    }

} // namespace

Result<InputSections> parseLdMemoryMap(const std::vector<MapLine>& lines, std::size_t begin, std::string_view fileName)
{
    Cursor cursor;
    for (std::size_t i = begin; i < lines.size(); ++i) {
        if (lines[i].text.starts_with("Cross Reference Table"))
            break;
        if (!isStatementLine(lines[i]))
            continue;
        const Statement s = readStatement(lines, i);
        if (s.indent == 0) {
            cursor.outputSection = s.name;
            continue;
        }
        if (isPattern(s))
            continue;
        if (auto added = addInputSection(s, cursor, fileName); !added)
            return added.error();
    }
    return std::move(cursor.sections);
}

std::size_t lineAfter(const std::vector<MapLine>& lines, std::string_view heading)
{
    const auto it = std::find_if(lines.begin(), lines.end(), [&](const MapLine& l) { return l.text == heading; });
    return it == lines.end() ? lines.size() : std::size_t(it - lines.begin()) + 1;
}

bool hasOutputSection(const std::vector<MapLine>& lines, std::size_t begin, std::string_view name)
{
    return std::any_of(lines.begin() + std::ptrdiff_t(begin), lines.end(), [&](const MapLine& l) {
        return leadingSpaces(l.text) == 0 && !isBlank(l.text) && words(l.text).front() == name;
    });
}

} // namespace ppe::mapparse
