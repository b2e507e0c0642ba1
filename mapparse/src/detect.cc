#include "detect.h"

#include "input_section.h"

#include <algorithm>
#include <array>

namespace ppe::mapparse {

namespace {

    constexpr std::string_view kGnuLdHeading = "Linker script and memory map";
    constexpr std::string_view kGoldHeading = "Memory map";
    constexpr std::string_view kNotAMap = "not a linker map (expected GNU ld, gold, lld or mold)";

    // Headings GNU ld and gold write before the memory map: a file starting with one of them and
    // lacking the memory map was cut off.
    constexpr std::array kPreambleHeadings = {
        std::string_view("Archive member included to satisfy reference by file (symbol)"),
        std::string_view("Archive member included because of file (symbol)"),
        std::string_view("As-needed library included to satisfy reference by file (symbol)"),
        std::string_view("Allocating common symbols"),
        std::string_view("Discarded input sections"),
        std::string_view("Merging program properties"),
        std::string_view("Memory Configuration"),
    };

    bool isBinaryByte(unsigned char c)
    {
        if (c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
            return false;
        return c < 0x20 || c == 0x7f;
    }

    // Line number of the first byte no text map contains, or 0.
    std::size_t firstBinaryLine(std::string_view text)
    {
        const auto it = std::find_if(
            text.begin(), text.end(), [](char c) { return isBinaryByte(static_cast<unsigned char>(c)); });
        if (it == text.end())
            return 0;
        return 1 + std::count(text.begin(), it, '\n');
    }

    const MapLine* firstNonBlank(const std::vector<MapLine>& lines)
    {
        const auto it = std::find_if(lines.begin(), lines.end(), [](const MapLine& l) { return !isBlank(l.text); });
        return it == lines.end() ? nullptr : &*it;
    }

    bool hasLine(const std::vector<MapLine>& lines, std::string_view wanted)
    {
        return std::any_of(lines.begin(), lines.end(), [&](const MapLine& l) { return l.text == wanted; });
    }

    bool hasWords(std::string_view line, std::initializer_list<std::string_view> wanted)
    {
        const auto got = words(line);
        return std::equal(got.begin(), got.end(), wanted.begin(), wanted.end());
    }

    bool isPreambleHeading(std::string_view line)
    {
        return std::find(kPreambleHeadings.begin(), kPreambleHeadings.end(), trim(line)) != kPreambleHeadings.end();
    }

} // namespace

Result<Dialect> detectDialect(std::string_view text, const std::vector<MapLine>& lines, std::string_view fileName)
{
    const MapLine* first = firstNonBlank(lines);
    if (!first)
        return mapError(fileName, 0, "empty file, expected a linker map");
    if (const std::size_t line = firstBinaryLine(text))
        return mapError(fileName, line, "binary data, not a linker map");
    if (first->text.starts_with("ppe-profile"))
        return mapError(fileName, 0, "a ppe profile, not a linker map");
    if (hasWords(first->text, { "VMA", "LMA", "Size", "Align", "Out", "In", "Symbol" }))
        return Dialect::Lld;
    if (hasWords(first->text, { "VMA", "Size", "Align", "Out", "In", "Symbol" }))
        return Dialect::Mold;
    if (hasLine(lines, kGnuLdHeading))
        return Dialect::GnuLd;
    if (hasLine(lines, kGoldHeading))
        return Dialect::Gold;
    if (isPreambleHeading(first->text))
        return mapError(fileName, lines.back().number, "truncated linker map (it ends before the memory map)");
    return mapError(fileName, 0, std::string(kNotAMap));
}

} // namespace ppe::mapparse
