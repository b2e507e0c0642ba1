#include "columnar_map.h"

#include <algorithm>

namespace ppe::mapparse {

namespace {

    constexpr std::size_t kInputIndent = 8;
    constexpr std::size_t kSymbolIndent = 16;

    struct Row {
        std::vector<uint64_t> numbers;
        std::size_t indent = 0;
        std::string_view name;
    };

    // Splits off the first word of `text`; returns it and leaves `text` just after it.
    std::string_view takeWord(std::string_view& text)
    {
        const std::size_t begin = std::min(text.find_first_not_of(' '), text.size());
        const std::size_t end = std::min(text.find(' ', begin), text.size());
        const std::string_view word = text.substr(begin, end - begin);
        text.remove_prefix(end);
        return word;
    }

    std::optional<Row> readRow(std::string_view text, const ColumnLayout& layout)
    {
        Row row;
        for (const NumberParser parse : layout.columns) {
            const auto value = parse(takeWord(text));
            if (!value)
                return std::nullopt;
            row.numbers.push_back(*value);
        }
        if (!text.starts_with(' '))
            return std::nullopt;
        text.remove_prefix(1);
        row.indent = leadingSpaces(text);
        row.name = trim(text);
        if (row.name.empty())
            return std::nullopt;
        return row;
    }

    bool isKnownIndent(std::size_t indent) { return indent == 0 || indent == kInputIndent || indent == kSymbolIndent; }

    // "libx.a(y.o):(.text.mix)" -> path "libx.a(y.o)", section ".text.mix". Rows at input level
    // without that shape are linker script commands (". = ALIGN(8)") and are skipped.
    void addInputSection(const Row& row, const MapLine& line, const ColumnLayout& layout, ColumnarMap& map)
    {
        const std::size_t colon = row.name.rfind(":(");
        if (colon == std::string_view::npos || !row.name.ends_with(')'))
            return;
        const std::string_view path = row.name.substr(0, colon);
        const std::string_view section = row.name.substr(colon + 2, row.name.size() - colon - 3);
        const std::string_view output = map.outputSections.empty() ? std::string_view() : map.outputSections.back();
        map.sections.push_back({ path, section, output, row.numbers[0], row.numbers[layout.sizeColumn], line.number });
    }

    std::size_t afterHeading(const std::vector<MapLine>& lines)
    {
        const auto it = std::find_if(lines.begin(), lines.end(), [](const MapLine& l) { return !isBlank(l.text); });
        return it == lines.end() ? lines.size() : std::size_t(it - lines.begin()) + 1;
    }

} // namespace

Result<ColumnarMap> parseColumnarMap(
    const std::vector<MapLine>& lines, const ColumnLayout& layout, std::string_view fileName)
{
    ColumnarMap map;
    for (std::size_t i = afterHeading(lines); i < lines.size(); ++i) {
        const MapLine& line = lines[i];
        if (isBlank(line.text))
            continue;
        const std::optional<Row> row = readRow(line.text, layout);
        if (!row || !isKnownIndent(row->indent))
            return mapError(fileName, line.number, "cannot parse map line");
        if (row->numbers[layout.sizeColumn] > UINT64_MAX - row->numbers[0])
            return mapError(fileName, line.number, "section extends beyond the address space");
        if (row->indent == 0)
            map.outputSections.push_back(row->name);
        else if (row->indent == kInputIndent)
            addInputSection(*row, line, layout, map);
    }
    return map;
}

bool contains(const std::vector<std::string_view>& names, std::string_view name)
{
    return std::find(names.begin(), names.end(), name) != names.end();
}

} // namespace ppe::mapparse
