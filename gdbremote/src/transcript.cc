#include "ppe/gdbremote/transcript.h"

#include "ppe/gdbremote/hex.h"

namespace ppe::gdbremote {

std::string escapeTranscriptBytes(std::string_view bytes)
{
    std::string out;
    for (char c : bytes) {
        auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f && c != '\\') {
            out.push_back(c);
            continue;
        }
        out += "\\x" + toHex(std::string_view(&c, 1));
    }
    return out;
}

std::string formatTranscript(const std::vector<TranscriptLine>& lines, const std::vector<std::string>& comments)
{
    std::string out;
    for (const auto& c : comments)
        out += "# " + c + "\n";
    for (const auto& l : lines)
        out += std::string(1, l.direction) + " " + escapeTranscriptBytes(l.bytes) + "\n";
    return out;
}

static bool unescape(std::string_view text, std::string& out)
{
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] != '\\') {
            out.push_back(text[i]);
            continue;
        }
        auto byte = text.substr(i, 4).size() == 4 && text[i + 1] == 'x' ? fromHex(text.substr(i + 2, 2)) : std::nullopt;
        if (!byte)
            return false;
        out += *byte;
        i += 3;
    }
    return true;
}

Result<std::vector<TranscriptLine>> parseTranscript(std::string_view text, const std::string& name)
{
    std::vector<TranscriptLine> lines;
    std::size_t number = 0;
    while (!text.empty()) {
        auto end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
        ++number;
        if (line.empty() || line[0] == '#')
            continue;
        TranscriptLine parsed;
        parsed.direction = line[0];
        bool good = line.size() > 2 && (line[0] == '<' || line[0] == '>') && line[1] == ' ';
        if (!good || !unescape(line.substr(2), parsed.bytes))
            return Error { name, number, "expected '< BYTES' or '> BYTES'" };
        lines.push_back(std::move(parsed));
    }
    return lines;
}

} // namespace ppe::gdbremote
