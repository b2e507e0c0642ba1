#include "ppe/formatter/shell_quote.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace ppe::formatter {

namespace {

    // Bytes a shell never treats specially anywhere in a word. Bytes from 0x80 up (UTF-8 names)
    // are ordinary word characters to sh, dash and bash, so such paths stay readable.
    bool literalByte(unsigned char c)
    {
        if (c >= 0x80)
            return true;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
            return true;
        return std::string_view("_-./,:@%+=").find(static_cast<char>(c)) != std::string_view::npos;
    }

    // NAME=... in command position is an assignment, not a command.
    bool looksLikeAssignment(const std::string& word)
    {
        const size_t equals = word.find('=');
        if (equals == std::string::npos || equals == 0 || (word[0] >= '0' && word[0] <= '9'))
            return false;
        return std::all_of(word.begin(), word.begin() + static_cast<std::ptrdiff_t>(equals), [](unsigned char c) {
            return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        });
    }

    bool reservedWord(const std::string& word)
    {
        static const std::array<std::string_view, 13> kReserved
            = { "if", "then", "else", "elif", "fi", "do", "done", "case", "esac", "while", "until", "for", "in" };
        return std::find(kReserved.begin(), kReserved.end(), word) != kReserved.end();
    }

    std::string singleQuoted(const std::string& arg)
    {
        std::string word = "'";
        for (const char c : arg)
            word += c == '\'' ? std::string("'\\''") : std::string(1, c);
        return word + "'";
    }

} // namespace

std::string shellWord(const std::string& arg)
{
    const bool bare = !arg.empty()
        && std::all_of(arg.begin(), arg.end(), [](char c) { return literalByte(static_cast<unsigned char>(c)); });
    return bare ? arg : singleQuoted(arg);
}

std::string shellCommand(const std::vector<std::string>& argv)
{
    std::string line;
    for (size_t i = 0; i < argv.size(); ++i) {
        const std::string& arg = argv[i];
        if (i > 0)
            line += ' ';
        line += i == 0 && (looksLikeAssignment(arg) || reservedWord(arg)) ? singleQuoted(arg) : shellWord(arg);
    }
    return line;
}

} // namespace ppe::formatter
