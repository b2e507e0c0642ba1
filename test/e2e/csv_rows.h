// Reading ppeout --format csv back in tests: RFC 4180 records (quoted fields, doubled quotes, CRLF)
// keyed by the header row's names, and the sums docs/formats.md promises, checked exactly.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace ppe::testing {

struct CsvRow {
    std::map<std::string, std::string> field; // column name -> text
    const std::string& operator[](const std::string& column) const { return field.at(column); }
    double hits() const { return std::stod(field.at("hits")); }
};

// The records after the header row.
inline std::vector<CsvRow> csvRows(const std::string& csv)
{
    std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
    bool quoted = false;
    for (size_t i = 0; i < csv.size(); ++i) {
        const char c = csv[i];
        if (c == '"' && quoted && i + 1 < csv.size() && csv[i + 1] == '"')
            records.back().back() += csv[++i];
        else if (c == '"')
            quoted = !quoted;
        else if (c == ',' && !quoted)
            records.back().emplace_back();
        else if (c == '\r' && !quoted && i + 1 < csv.size() && csv[i + 1] == '\n')
            records.emplace_back(1), ++i;
        else
            records.back().back() += c;
    }
    if (records.back().size() == 1 && records.back()[0].empty())
        records.pop_back();
    std::vector<CsvRow> rows;
    for (size_t r = 1; r < records.size(); ++r) {
        EXPECT_EQ(records[r].size(), records[0].size()) << "record " << r;
        CsvRow row;
        for (size_t f = 0; f < records[r].size() && f < records[0].size(); ++f)
            row.field[records[0][f]] = records[r][f];
        rows.push_back(row);
    }
    return rows;
}

// Equal but for the rounding of adding up fractional hits (bins split by bytes) in another order.
inline void expectSum(double sum, double total, const std::string& what)
{
    EXPECT_NEAR(sum, total, 1e-9 * std::max(1.0, std::fabs(total))) << what;
}

// Each line's instruction rows (--asm) sum to the line's hits; returns the lines that had some.
inline size_t expectInstructionsSumToTheirLines(const std::vector<CsvRow>& rows)
{
    using Key = std::tuple<std::string, std::string, std::string, std::string>; // object module file line
    std::map<Key, double> lines, instructions;
    for (const CsvRow& r : rows) {
        const Key key { r["object"], r["module"], r["file"], r["line"] };
        if (r["kind"] == "line" && !r["line"].empty())
            lines[key] += r.hits();
        if (r["kind"] == "instruction")
            instructions[key] += r.hits();
    }
    for (const auto& [key, sum] : instructions) {
        const auto& [object, module, file, line] = key;
        EXPECT_TRUE(lines.contains(key)) << module << " " << file << ":" << line;
        expectSum(sum, lines[key], "instructions of " + module + " " + file + ":" + line + " in " + object);
    }
    return instructions.size();
}

} // namespace ppe::testing
