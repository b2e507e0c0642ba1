#include "ppe/profile/text_fields.h"

#include "ppe/core/civil_time.h"
#include "ppe/support/hex_digit.h"

#include <charconv>

namespace ppe {

namespace {

    // Reads a quoted token starting at line[i] == '"'; advances i past the closing quote.
    std::optional<std::string> readQuoted(std::string_view line, size_t& i)
    {
        std::string out;
        for (++i; i < line.size(); ++i) {
            const char c = line[i];
            if (c == '"') {
                ++i;
                return out;
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (++i == line.size())
                return std::nullopt;
            const char e = line[i];
            if (e == 'n')
                out += '\n';
            else if (e == 't')
                out += '\t';
            else if (e == '\\' || e == '"')
                out += e;
            else if (e == 'x' && i + 2 < line.size() && hexDigit(line[i + 1]) >= 0 && hexDigit(line[i + 2]) >= 0) {
                out += char(hexDigit(line[i + 1]) * 16 + hexDigit(line[i + 2]));
                i += 2;
            } else
                return std::nullopt;
        }
        return std::nullopt;
    }

} // namespace

std::optional<std::vector<std::string>> splitFields(std::string_view line)
{
    std::vector<std::string> fields;
    size_t i = 0;
    while (i < line.size()) {
        if (line[i] == ' ') {
            ++i;
            continue;
        }
        if (line[i] == '"') {
            auto quoted = readQuoted(line, i);
            if (!quoted || (i < line.size() && line[i] != ' '))
                return std::nullopt;
            fields.push_back(std::move(*quoted));
            continue;
        }
        const size_t start = i;
        while (i < line.size() && line[i] != ' ')
            ++i;
        fields.emplace_back(line.substr(start, i - start));
    }
    return fields;
}

std::optional<uint64_t> parseUnsigned(std::string_view text)
{
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty())
        return std::nullopt;
    return value;
}

std::optional<uint64_t> parseHex(std::string_view text)
{
    if (text.size() < 3 || text.substr(0, 2) != "0x")
        return std::nullopt;
    uint64_t value = 0;
    const auto [end, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), value, 16);
    if (ec != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::optional<double> parseFixed(std::string_view text)
{
    const size_t dot = text.find('.');
    const auto whole = parseUnsigned(text.substr(0, dot));
    if (!whole)
        return std::nullopt;
    if (dot == std::string_view::npos)
        return double(*whole);
    const std::string_view digits = text.substr(dot + 1);
    const auto fraction = parseUnsigned(digits);
    if (!fraction || digits.size() > 18)
        return std::nullopt;
    double scale = 1;
    for (size_t i = 0; i < digits.size(); ++i)
        scale *= 10;
    return double(*whole) + double(*fraction) / scale;
}

std::optional<int64_t> parseUtc(std::string_view text)
{
    // YYYY-MM-DDTHH:MM:SSZ
    if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' || text[16] != ':'
        || text[19] != 'Z')
        return std::nullopt;
    const auto year = parseUnsigned(text.substr(0, 4));
    const auto month = parseUnsigned(text.substr(5, 2));
    const auto day = parseUnsigned(text.substr(8, 2));
    const auto hour = parseUnsigned(text.substr(11, 2));
    const auto minute = parseUnsigned(text.substr(14, 2));
    const auto second = parseUnsigned(text.substr(17, 2));
    if (!year || !month || !day || !hour || !minute || !second || *month < 1 || *month > 12 || *day < 1 || *day > 31
        || *hour > 23 || *minute > 59 || *second > 60)
        return std::nullopt;
    return unixFromCivil(CivilTime {
        int64_t(*year), unsigned(*month), unsigned(*day), unsigned(*hour), unsigned(*minute), unsigned(*second) });
}

std::optional<std::string> parseBuildId(std::string_view text)
{
    if (text == "none")
        return std::string();
    if (text.empty() || text.size() % 2)
        return std::nullopt;
    for (char c : text) {
        if (hexDigit(c) < 0 || (c >= 'A' && c <= 'F'))
            return std::nullopt;
    }
    return std::string(text);
}

} // namespace ppe
