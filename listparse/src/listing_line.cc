#include "listing_line.h"

#include "text_scan.h"

#include <cstdint>
#include <optional>

namespace ppe::listparse {

namespace {

    bool startsWith(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

    bool isSymbolTableHeading(std::string_view s)
    {
        return s == "DEFINED SYMBOLS" || s == "NO DEFINED SYMBOLS" || s == "UNDEFINED SYMBOLS"
            || s == "NO UNDEFINED SYMBOLS";
    }

    // Counts the bytes of space-separated hex words ("F81C 8EB4"); nullopt if a word is not hex or
    // has an odd number of digits.
    std::optional<uint64_t> countHexBytes(std::string_view words)
    {
        uint64_t bytes = 0;
        for (std::string_view word = takeToken(words); !word.empty(); word = takeToken(words)) {
            if (word.size() % 2 != 0)
                return std::nullopt;
            for (char c : word) {
                if (!isHexDigit(c))
                    return std::nullopt;
            }
            bytes += word.size() / 2;
        }
        return bytes;
    }

    // "  13:simp.c        **** text": `rest` starts after the colon.
    ListingLine sourceLine(unsigned number, std::string_view rest)
    {
        ListingLine out;
        size_t stars = rest.find(" ****");
        if (stars == std::string_view::npos)
            return out;
        std::string_view after = rest.substr(stars + 5);
        if (!after.empty() && after.front() != ' ')
            return out;
        out.fileName = trimRight(rest.substr(0, stars));
        if (out.fileName.empty() || stars < 13) // gas pads the name to 13 columns
            return out;
        out.kind = LineKind::Source;
        out.number = number;
        out.text = after.empty() ? after : after.substr(1);
        return out;
    }

    // "  12      4DE8": `rest` starts after the line number; gas indents the bytes by six blanks.
    ListingLine continuationLine(unsigned number, std::string_view rest)
    {
        ListingLine out;
        if (rest.size() < 7 || rest.substr(0, 6) != "      " || !isHexDigit(rest[6]))
            return out;
        auto bytes = countHexBytes(rest);
        if (!bytes)
            return out;
        out.kind = LineKind::Continuation;
        out.number = number;
        out.byteCount = *bytes;
        return out;
    }

    // "  12 0000 4889E5   \t\tmovq ...": `left` is between the line number and the first tab. Without
    // bytes gas leaves it blank (14 columns or more); with bytes it is one blank, the address (at
    // least four hex digits, or "????" after errors), one blank and the bytes.
    ListingLine codeLine(unsigned number, std::string_view left, std::string_view text)
    {
        ListingLine out;
        if (trim(left).empty() && left.size() < 6)
            return out;
        if (!trim(left).empty()) {
            if (left.size() < 2 || left[1] == ' ')
                return out;
            std::string_view address = takeToken(left);
            auto bytes = countHexBytes(left);
            auto value = parseNumber<uint64_t>(address, 16);
            if (address == "????")
                out.addressUnknown = true;
            else if (address.size() < 4 || address.size() > 8 || !value || !bytes || *bytes == 0)
                return out; // gas prints an unsigned int with %04x
            out.hasAddress = true;
            out.address = value.value_or(0);
            out.byteCount = bytes.value_or(0);
        }
        out.kind = LineKind::Code;
        out.number = number;
        out.text = text;
        return out;
    }

    ListingLine numberedLine(std::string_view line)
    {
        std::string_view rest = trimLeft(line);
        size_t digits = 0;
        while (digits < rest.size() && isDigit(rest[digits]))
            ++digits;
        auto number = parseNumber<unsigned>(rest.substr(0, digits));
        rest.remove_prefix(digits);
        if (!number || rest.empty() || *number > unsigned(INT32_MAX)) // lines are ints from here on
            return {};
        if (rest.front() == ':')
            return sourceLine(*number, rest.substr(1));
        if (rest.front() != ' ')
            return {};
        size_t tab = rest.find('\t');
        if (tab == std::string_view::npos)
            return continuationLine(*number, rest);
        return codeLine(*number, rest.substr(0, tab), rest.substr(tab + 1));
    }

} // namespace

ListingLine classifyLine(std::string_view line)
{
    while (!line.empty() && line.front() == '\f')
        line.remove_prefix(1);
    ListingLine out;
    if (trim(line).empty())
        out.kind = LineKind::Blank;
    else if (startsWith(line, "GAS LISTING"))
        out.kind = LineKind::PageHeader;
    else if (startsWith(line, "****"))
        out.kind = LineKind::Message;
    else if (isSymbolTableHeading(trimRight(line)))
        out.kind = LineKind::SymbolTable;
    else if (startsWith(line, " GNU assembler version"))
        out.kind = LineKind::GeneralInfo;
    else
        out = numberedLine(line);
    return out;
}

} // namespace ppe::listparse
