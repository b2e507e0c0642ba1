#include "statement.h"

#include "text_scan.h"

namespace ppe::listparse {

namespace {

    bool isComment(std::string_view s)
    {
        return s.empty() || s.front() == '#' || s.front() == ';' || s.substr(0, 2) == "//";
    }

    // Drops leading "name:" labels (gcc and clang put them on lines of their own, but a label may
    // also precede a statement).
    std::string_view skipLabels(std::string_view s)
    {
        for (;;) {
            std::string_view rest = s;
            std::string_view token = takeToken(rest);
            if (token.size() < 2 || token.back() != ':' || token.find('"') != std::string_view::npos)
                return s;
            s = trimLeft(rest);
        }
    }

    // Length of the quoted string at the start of `s` (quotes included); 0 when unterminated.
    size_t quotedLength(std::string_view s)
    {
        for (size_t i = 1; i < s.size(); ++i) {
            if (s[i] == '\\')
                ++i;
            else if (s[i] == '"')
                return i + 1;
        }
        return 0;
    }

    template <class IsSeparator>
    std::vector<std::string_view> splitOutsideQuotes(std::string_view args, IsSeparator isSeparator)
    {
        std::vector<std::string_view> parts;
        size_t start = 0;
        for (size_t i = 0; i < args.size(); ++i) {
            if (args[i] == '"') {
                size_t length = quotedLength(args.substr(i));
                i += length ? length - 1 : args.size();
            } else if (args[i] == '#' && (i == 0 || isBlank(args[i - 1]))) {
                args = args.substr(0, i);
                break;
            } else if (isSeparator(args[i])) {
                parts.push_back(trim(args.substr(start, i - start)));
                start = i + 1;
            }
        }
        if (start < args.size())
            parts.push_back(trim(args.substr(start)));
        return parts;
    }

    unsigned char octalEscape(std::string_view s, size_t& i)
    {
        unsigned value = 0;
        for (int digits = 0; digits < 3 && i < s.size() && s[i] >= '0' && s[i] <= '7'; ++digits, ++i)
            value = value * 8 + unsigned(s[i] - '0');
        --i;
        return static_cast<unsigned char>(value);
    }

    char simpleEscape(char c)
    {
        switch (c) {
        case 'n':
            return '\n';
        case 't':
            return '\t';
        case 'r':
            return '\r';
        default:
            return c;
        }
    }

} // namespace

Statement parseStatement(std::string_view text)
{
    std::string_view s = skipLabels(trim(text));
    Statement out;
    if (isComment(s)) {
        out.kind = parseLineMarker(s) ? StatementKind::LineMarker : StatementKind::Empty;
        return out;
    }
    if (s.front() != '.') {
        out.kind = StatementKind::Instruction;
        return out;
    }
    std::string_view rest = s;
    out.directive = takeToken(rest);
    out.args = trim(rest);
    out.kind = out.directive == ".linefile" ? StatementKind::LineMarker : StatementKind::Directive;
    return out;
}

std::optional<LineMarker> parseLineMarker(std::string_view text)
{
    std::string_view s = trim(text);
    if (s.substr(0, 9) == ".linefile")
        s.remove_prefix(9);
    else if (s.substr(0, 1) == "#")
        s.remove_prefix(1);
    else
        return std::nullopt;
    s = trimLeft(s);
    size_t digits = 0;
    while (digits < s.size() && isDigit(s[digits]))
        ++digits;
    auto line = parseNumber<unsigned>(s.substr(0, digits));
    s = trimLeft(s.substr(digits));
    size_t quoted = s.empty() || s.front() != '"' ? 0 : quotedLength(s);
    if (!line || quoted == 0)
        return std::nullopt;
    return LineMarker { *line, unquote(s.substr(0, quoted)) };
}

std::vector<std::string_view> splitAtCommas(std::string_view args)
{
    return splitOutsideQuotes(args, [](char c) { return c == ','; });
}

std::vector<std::string_view> splitAtBlanks(std::string_view args)
{
    std::vector<std::string_view> words;
    for (std::string_view word : splitOutsideQuotes(trim(args), isBlank)) {
        if (!word.empty())
            words.push_back(word);
    }
    return words;
}

std::string unquote(std::string_view arg)
{
    if (arg.size() < 2 || arg.front() != '"' || arg.back() != '"')
        return std::string(arg);
    std::string out;
    for (size_t i = 1; i + 1 < arg.size(); ++i) {
        if (arg[i] != '\\' || i + 2 >= arg.size()) {
            out += arg[i];
            continue;
        }
        ++i;
        out += arg[i] >= '0' && arg[i] <= '7' ? char(octalEscape(arg, i)) : simpleEscape(arg[i]);
    }
    return out;
}

} // namespace ppe::listparse
