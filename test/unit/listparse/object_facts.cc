#include "object_facts.h"

#include <gtest/gtest.h>

#include <charconv>
#include <fstream>
#include <sstream>

namespace ppe::listparse::test {

namespace {

    std::vector<std::string> words(const std::string& line)
    {
        std::istringstream in(line);
        std::vector<std::string> out;
        for (std::string word; in >> word;)
            out.push_back(word);
        return out;
    }

    uint64_t hexValue(const std::string& text)
    {
        uint64_t value = 0;
        std::from_chars(text.data(), text.data() + text.size(), value, 16);
        return value;
    }

    std::string baseName(const std::string& path)
    {
        size_t slash = path.rfind('/');
        return slash == std::string::npos ? path : path.substr(slash + 1);
    }

    // "simp.c   17   0x2b   1   x": a decoded row; "simp.c   -   0x9a": the end of a sequence.
    bool decodedRow(const std::vector<std::string>& w, LineRow& row, bool& end)
    {
        if (w.size() < 3 || w[2].find_first_not_of("0123456789abcdefx") != std::string::npos)
            return false;
        end = w[1] == "-";
        auto [ptr, ec] = std::from_chars(w[1].data(), w[1].data() + w[1].size(), row.line);
        if (!end && (ec != std::errc() || ptr != w[1].data() + w[1].size()))
            return false;
        row.address = hexValue(w[2].rfind("0x", 0) == 0 ? w[2].substr(2) : w[2]);
        row.file = baseName(w[0]);
        return true;
    }

    // "00000124  00000604 R_ARC_32  00000000   .text.unlikely + 0": the symbol, a section name.
    std::string relocatedSection(const std::vector<std::string>& w)
    {
        bool relocation = w.size() >= 5 && w[0].find_first_not_of("0123456789abcdef") == std::string::npos;
        if (!relocation || w[w.size() - 2] != "+")
            return "";
        return w[w.size() - 3];
    }

} // namespace

std::string readFixture(const std::string& name)
{
    std::ifstream in(std::string(PPE_LISTINGS_DIR) + "/" + name, std::ios::binary);
    EXPECT_TRUE(in) << "cannot read fixture " << name;
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

std::vector<std::string> sourceFileLines(const std::string& name)
{
    std::istringstream in(readFixture("src/" + name));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);)
        lines.push_back(line);
    return lines;
}

std::map<std::string, uint64_t> codeSectionsFromReadelf(const std::string& text)
{
    std::map<std::string, uint64_t> sections;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        size_t bracket = line.find("] ");
        if (line.find("  [") != 0 || bracket == std::string::npos)
            continue;
        // Name Type Address Off Size ES [Flg] Lk Inf Al
        std::vector<std::string> w = words(line.substr(bracket + 2));
        if (w.size() == 10 && w[6].find('X') != std::string::npos)
            sections[w[0]] = hexValue(w[4]);
    }
    return sections;
}

std::vector<LineSequence> lineTableFromDump(const std::string& text)
{
    std::vector<LineSequence> sequences(1);
    std::vector<std::string> sections;
    bool inRelocations = false;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        std::vector<std::string> w = words(line);
        LineRow row;
        bool end = false;
        if (line.rfind("Relocation section '.rela.debug_line'", 0) == 0) {
            inRelocations = true;
        } else if (inRelocations) {
            // gas writes one sequence per section; a second DW_LNE_set_address for the same
            // section (.text.unlikely + 26) is inside the sequence.
            std::string section = relocatedSection(w);
            bool sameSequence = !sections.empty() && sections.back() == section;
            if (!section.empty() && section.rfind(".debug", 0) != 0 && !sameSequence)
                sections.push_back(section);
        } else if (decodedRow(w, row, end) && end) {
            sequences.back().end = row.address;
            sequences.emplace_back();
        } else if (decodedRow(w, row, end)) {
            sequences.back().rows.push_back(row);
        }
    }
    sequences.pop_back();
    EXPECT_EQ(sequences.size(), sections.size()) << "line-table sequences and their relocations";
    for (size_t i = 0; i < sequences.size() && i < sections.size(); ++i)
        sequences[i].section = sections[i];
    return sequences;
}

} // namespace ppe::listparse::test
