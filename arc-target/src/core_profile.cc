#include "ppe/arc/core_profile.h"

#include "ppe/arc/aux_registers.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace ppe::arc {

namespace {

    constexpr size_t kMaxWords = 8;

    std::vector<std::string_view> wordsOf(std::string_view line)
    {
        std::vector<std::string_view> words;
        for (size_t at = 0; at < line.size() && words.size() <= kMaxWords;) {
            const size_t begin = line.find_first_not_of(" \t\r", at);
            if (begin == std::string_view::npos)
                break;
            const size_t end = std::min(line.find_first_of(" \t\r", begin), line.size());
            words.push_back(line.substr(begin, end - begin));
            at = end;
        }
        return words;
    }

    // A whole unsigned number (decimal or 0x hex) that fits 32 bits.
    std::optional<uint32_t> number(std::string_view word)
    {
        const bool hex = word.size() > 2 && word[0] == '0' && (word[1] == 'x' || word[1] == 'X');
        const std::string_view digits = hex ? word.substr(2) : word;
        if (digits.empty() || digits.size() > 10)
            return std::nullopt;
        uint64_t value = 0;
        for (char c : digits) {
            const int d = c >= '0' && c <= '9' ? c - '0'
                : hex && c >= 'a' && c <= 'f'  ? c - 'a' + 10
                : hex && c >= 'A' && c <= 'F'  ? c - 'A' + 10
                                               : -1;
            if (d < 0)
                return std::nullopt;
            value = value * (hex ? 16 : 10) + uint64_t(d);
        }
        return value > 0xFFFFFFFFu ? std::nullopt : std::optional<uint32_t>(uint32_t(value));
    }

    // Why `bit` of `address` cannot be the range's enable bit ("" when it can): the bits and
    // registers the driver itself uses would be overwritten or would overwrite it.
    std::string refusedBit(uint32_t address, unsigned bit)
    {
        if (bit > 31)
            return "bit " + std::to_string(bit) + ": not 0-31";
        if (address == aux::kPctConfig && (bit < 16 || bit == 18 || bit == 19))
            return "bit " + std::to_string(bit) + " of pct_config is the condition or the user/kernel bits";
        if (address == aux::kPctControl && (bit == 0 || bit == 16 || bit == 17))
            return "bit " + std::to_string(bit) + " of pct_control runs, clears or snapshots the counters";
        for (uint32_t used :
            { aux::kPctBuild, aux::kCcBuild, aux::kCcIndex, aux::kCcName0, aux::kCcName1, aux::kPctCountL,
                aux::kPctCountH, aux::kPctSnapL, aux::kPctSnapH, aux::kPctIndex, aux::kPctRangeL, aux::kPctRangeH }) {
            if (address == used)
                return std::string(auxName(address).value_or("that register")) + " holds a value, not an enable bit";
        }
        return "";
    }

    // One setting into `p`; the error message, or "".
    std::string setting(const std::vector<std::string_view>& w, CoreProfile& p, unsigned& seen)
    {
        const std::string_view key = w[0];
        const unsigned flag = key == "core" ? 1 : key == "range-enable" ? 2 : key == "range-end" ? 4 : 8;
        if (key != "core" && key != "range-enable" && key != "range-end" && key != "pct-build")
            return "unknown setting '" + std::string(key.substr(0, 40))
                + "' (core, range-enable, range-end, pct-build)";
        if (seen & flag)
            return std::string(key) + " is given twice";
        seen |= flag;
        if (w.size() != (key == "range-enable" ? 3u : 2u))
            return key == "range-enable" ? "expected range-enable REGISTER BIT (e.g. range-enable pct_config 24)"
                                         : "expected " + std::string(key) + " and one value";
        if (key == "core") {
            p.core = std::string(w[1]);
        } else if (key == "range-end") {
            if (w[1] != "inclusive" && w[1] != "exclusive")
                return "range-end is inclusive or exclusive";
            p.rangeEndInclusive = w[1] == "inclusive";
        } else if (key == "pct-build") {
            p.pctBuild = number(w[1]);
            if (!p.pctBuild)
                return "pct-build: not a 32-bit number";
        } else {
            const std::optional<uint32_t> address = number(w[1]) ? number(w[1]) : auxAddress(w[1]);
            const std::optional<uint32_t> bit = number(w[2]);
            if (!address)
                return "range-enable: '" + std::string(w[1].substr(0, 40)) + "' is no aux register name or address";
            if (!bit)
                return "range-enable: the bit is a number from 0 to 31";
            if (std::string why = refusedBit(*address, *bit); !why.empty())
                return "range-enable: " + why;
            p.rangeRegister = *address;
            p.rangeBit = *bit;
        }
        return "";
    }

} // namespace

Result<CoreProfile> parseCoreProfile(std::string_view text, const std::string& file)
{
    if (text.size() > kMaxCoreProfileBytes)
        return Error { file, 0, "larger than " + std::to_string(kMaxCoreProfileBytes) + " bytes: not a core profile" };
    CoreProfile profile;
    unsigned seen = 0;
    size_t number = 0;
    for (size_t at = 0; at < text.size(); ++number) {
        const size_t end = std::min(text.find('\n', at), text.size());
        std::string_view line = text.substr(at, end - at);
        at = end + 1;
        line = line.substr(0, line.find('#'));
        if (line.find('\0') != std::string_view::npos)
            return Error { file, number + 1, "a NUL byte: not a text file" };
        const std::vector<std::string_view> words = wordsOf(line);
        if (words.empty())
            continue;
        if (std::string message = setting(words, profile, seen); !message.empty())
            return Error { file, number + 1, message };
    }
    if (!(seen & 1))
        return Error { file, 0, "no 'core NAME' line" };
    if (!(seen & 2))
        return Error { file, 0, "no 'range-enable REGISTER BIT' line: range counting stays off" };
    return profile;
}

Result<CoreProfile> readCoreProfile(const std::string& path)
{
    std::FILE* in = std::fopen(path.c_str(), "rb");
    if (!in)
        return Error { path, 0, std::string("cannot open: ") + std::strerror(errno) };
    std::string text(kMaxCoreProfileBytes + 1, '\0');
    const size_t got = std::fread(text.data(), 1, text.size(), in);
    const bool failed = std::ferror(in) != 0;
    std::fclose(in);
    if (failed)
        return Error { path, 0, "cannot read" };
    text.resize(got);
    return parseCoreProfile(text, path);
}

} // namespace ppe::arc
