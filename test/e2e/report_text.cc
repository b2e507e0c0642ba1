#include "report_text.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

namespace ppe::testing {

std::vector<Row> moduleRows(const std::string& report)
{
    // With call paths, "Incl % +- error" after the error (groups 11 and 12).
    static const std::regex kRow(R"(^\s*\d+ - (.+?)\s+([0-9.]+) \+-\s+([0-9.]+)(\*?)(?:\s+([0-9.]+) \+-\s+([0-9.]+))?)"
                                 R"(\s+([0-9.]+)\s+([0-9.]+)\s+(\d+)\s+([0-9A-F]+)(\+?)\s+(\d+)$)");
    std::vector<Row> rows;
    std::istringstream in(report);
    std::string line;
    std::smatch m;
    while (
        std::getline(in, line) && line.rfind("PPE - SHARED OBJECTS", 0) != 0 && line.rfind("Program text.", 0) != 0) {
        if (std::regex_match(line, m, kRow)) {
            rows.push_back({ m[1], std::stod(m[2]), std::stod(m[3]), std::stod(m[8]), std::stod(m[9]),
                std::stoull(m[10], nullptr, 16), std::stoull(m[12]), std::stod(m[7]), m[4] == "*", m[11] == "+",
                m[5].matched ? std::stod(m[5]) : -1, m[6].matched ? std::stod(m[6]) : 0 });
        }
    }
    return rows;
}

std::string inRangeCount(const std::string& report)
{
    std::smatch m;
    return std::regex_search(report, m, std::regex(R"(In range count\s+(\d+))")) ? m[1].str() : "";
}

std::vector<ModuleText> programText(const std::string& report)
{
    static const std::regex kHeading(R"(^Program text\.  Module (.+)  Hits total (\d+)  \(lines from the (.*)\)$)");
    static const std::regex kHit(R"(^ *(\d+) +(\d+|<1) (X*) +([0-9.]+)  (.*)$)");
    static const std::regex kPlain(R"(^ *(\d+)(?: {40,}(.*))?$)");
    std::vector<ModuleText> modules;
    std::istringstream in(report);
    std::string line;
    std::smatch m;
    while (std::getline(in, line)) {
        if (std::regex_match(line, m, kHeading)) {
            modules.push_back({ m[1], std::stod(m[2]), m[3], {}, {} });
        } else if (!modules.empty() && line.rfind("File ", 0) == 0) {
            modules.back().files.push_back(
                { line, line.find("(its lines with hits in this module") == std::string::npos, {} });
        } else if (!modules.empty() && !modules.back().files.empty()) {
            std::vector<TextRow>& rows = modules.back().files.back().rows;
            if (std::regex_match(line, m, kHit)) {
                const double hits = m[2] == "<1" ? 0.25 : std::stod(m[2]);
                rows.push_back({ std::stoi(m[1]), hits, size_t(m[3].length()), std::stod(m[4]), m[5] });
            } else if (std::regex_match(line, m, kPlain)) {
                rows.push_back({ std::stoi(m[1]), 0, 0, -1, m[2] });
            }
        }
    }
    for (ModuleText& module : modules) {
        if (!module.files.empty() && module.files.front().own)
            module.rows = module.files.front().rows;
    }
    return modules;
}

std::vector<TextRow> otherFileRows(const std::string& report, const std::string& name)
{
    std::vector<TextRow> rows;
    for (const ModuleText& module : programText(report)) {
        for (const FileText& file : module.files) {
            if (!file.own && file.heading.rfind("File " + name + "  ", 0) == 0)
                rows.insert(rows.end(), file.rows.begin(), file.rows.end());
        }
    }
    return rows;
}

const TextRow& busiest(const std::vector<TextRow>& rows)
{
    static const TextRow kNone;
    const TextRow* best = rows.empty() ? &kNone : &rows.front();
    for (const TextRow& r : rows)
        best = r.hits > best->hits ? &r : best;
    return *best;
}

std::string trim(const std::string& s)
{
    const size_t a = s.find_first_not_of(" \t");
    const size_t b = s.find_last_not_of(" \t");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

std::string withoutBenignWarnings(const std::string& err, double maxPercent)
{
    static const std::regex stray(
        R"(ppeout: warning: \d+ of \d+ in-range hits \(([0-9.]+)%\) fell where no module's code is .*)");
    static const std::regex tickBound(
        R"(ppeout: warning: only \d+% of the samples .* itimer-prof fires only on the scheduler tick.*)");
    std::istringstream in(err);
    std::string kept, line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (std::regex_match(line, m, stray) && std::stod(m[1]) <= maxPercent)
            continue;
        if (std::regex_match(line, tickBound))
            continue;
        kept += line + "\n";
    }
    return kept;
}

int lineOf(const std::string& file, const std::string& text, int from)
{
    std::ifstream in(file);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
        if (n > from && line.find(text) != std::string::npos)
            return n;
    }
    ADD_FAILURE() << text << " not in " << file;
    return -1;
}

} // namespace ppe::testing
