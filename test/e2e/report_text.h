// Reading ppeout's text report back in tests: the module table, the program text, the source.
#pragma once

#include <string>
#include <vector>

namespace ppe::testing {

// A row of the module table ("   1 - gram_  57.77 +-  1.68  57.77  498  CE0  292").
struct Row {
    std::string name;
    double percent, error, accumulated, hits;
    uint64_t address = 0, size = 0;
    double allPercent = 0; // the "All %" column: of all samples
    bool split = false; // marked '*': hits from bins split between modules
    bool severalRanges = false; // marked '+'
    double inclusive = -1, inclusiveError = 0; // "Incl %" with call paths; -1 without
};
std::vector<Row> moduleRows(const std::string& report);
std::string inRangeCount(const std::string& report);

// A line of a module's program text.
struct TextRow {
    int line = 0;
    double hits = 0;
    size_t bar = 0; // number of X
    double accumulated = -1; // -1 on lines without hits
    std::string text;
};

struct FileText {
    std::string heading; // the "File ..." line
    bool own = false; // the module's own source file, not a header's inlined lines
    std::vector<TextRow> rows;
};

struct ModuleText {
    std::string name;
    double hitsTotal = 0;
    std::string origin; // "listing X", "DWARF"
    std::vector<TextRow> rows; // the module's own file
    std::vector<FileText> files; // every file, the own one first
};

// The "Program text." sections of a report.
std::vector<ModuleText> programText(const std::string& report);

// The rows printed under `File NAME` for a file other than a module's own.
std::vector<TextRow> otherFileRows(const std::string& report, const std::string& name);

// The row with the most hits.
const TextRow& busiest(const std::vector<TextRow>& rows);

std::string trim(const std::string& s);

// ppeout's stderr without the warnings any run may give: stray hits when they are at most
// `maxPercent` of the in-range hits (a sample may land in a PLT stub or start-up code of any
// program), and the missing samples of itimer-prof, the fallback where perf events are refused
// (it fires on the scheduler tick, whatever rate is asked). "No warnings" means none other.
std::string withoutBenignWarnings(const std::string& err, double maxPercent = 0.5);

// The 1-based number of the first line of `file` after line `from` whose text contains `text`
// (fails the test and returns -1 when there is none).
int lineOf(const std::string& file, const std::string& text, int from = 0);

} // namespace ppe::testing
