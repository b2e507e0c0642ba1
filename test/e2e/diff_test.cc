// `ppeout --diff` on real runs: the example diff_work (four functions of equal, deterministic
// work) run twice, and its rebuilt variant diff_work_slow (south() does twice the work, and its
// larger code moves the other three), all under the real collector in CPU mode, compared by the
// real ppeout.
#include "csv_rows.h"
#include "json_schema_check.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;

    // A row of a comparison table.
    struct DiffRow {
        std::string name;
        double basePercent = 0, newPercent = 0, deltaPercent = 0, shareZ = 0, shareP = 1;
        double baseSeconds = 0, newSeconds = 0, deltaSeconds = 0, error = 0, timeZ = 0, timeP = 1;
        std::string moved; // "faster", "slower, less than the rest", "smaller share only", "-"...
        bool significant = false; // time and share changed in the same direction: "faster" or "slower"
    };

    // The rows of the table after `title` ("COMPARISON BY FUNCTION") in ppeout's text.
    std::vector<DiffRow> diffRows(const std::string& text, const std::string& title)
    {
        static const std::regex row(
            R"(^\s*\d+ - (.*?)\s+(-?[\d.]+)\s+(-?[\d.]+)\s+([-+][\d.]+)\s+(-?[\d.]+)\s+(\S+)\s+)"
            R"((-?[\d.]+)\s+(-?[\d.]+)\s+([-+][\d.]+) \+-\s+([\d.]+)\s+(-?[\d.]+)\s+(\S+)\s+)"
            R"((.*?)( \(no hits in \w+\))?$)");
        std::vector<DiffRow> rows;
        const size_t at = text.find(title);
        if (at == std::string::npos)
            return rows;
        std::istringstream in(text.substr(at));
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line) && line.find("PPE - ") == std::string::npos) {
            std::smatch m;
            if (!std::regex_match(line, m, row))
                continue;
            const std::string moved = m[13];
            rows.push_back({ m[1], std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), std::stod(m[5]), std::stod(m[6]),
                std::stod(m[7]), std::stod(m[8]), std::stod(m[9]), std::stod(m[10]), std::stod(m[11]), std::stod(m[12]),
                moved, moved == "faster" || moved == "slower" });
        }
        return rows;
    }

    const DiffRow* find(const std::vector<DiffRow>& rows, const std::string& prefix)
    {
        for (const DiffRow& r : rows) {
            if (r.name.starts_with(prefix))
                return &r;
        }
        return nullptr;
    }

    // A build of the example as a user's rebuild is: dir/BUILD/diff_work, whichever target made it.
    std::string installed(const TempDir& dir, const std::string& target, const std::string& build)
    {
        std::filesystem::create_directories(dir.file(build));
        const std::string exe = dir.file(build + "/diff_work");
        std::filesystem::copy_file(kExamples + "/" + target, exe, std::filesystem::copy_options::overwrite_existing);
        return exe;
    }

    // Runs `exe` under the collector in CPU mode into dir/NAME.ppe.
    std::string profileOf(const TempDir& dir, const std::string& exe, const std::string& name)
    {
        const std::string ppe = dir.file(name + ".ppe");
        const RunResult run = runProgram({ exe }, { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_OUT", ppe } });
        EXPECT_EQ(run.status, 0) << run.err;
        return ppe;
    }

    // The address of each function in a profile formatted alone ("south" for "south (diff_work.c)").
    std::map<std::string, uint64_t> addressesOf(const std::string& ppe)
    {
        const RunResult r = runProgram({ PPEOUT, "--by", "function", ppe, "-" });
        EXPECT_EQ(r.status, 0) << r.err;
        std::map<std::string, uint64_t> addresses;
        for (const Row& row : moduleRows(r.out))
            addresses[row.name.substr(0, row.name.find(' '))] = row.address;
        return addresses;
    }

    std::string significantNames(const std::vector<DiffRow>& rows)
    {
        std::string names;
        for (const DiffRow& r : rows)
            names += r.significant ? r.name + "; " : "";
        return names;
    }

    class DiffTest : public ::testing::Test {
    protected:
        void SetUp() override
        {
            // The tick-bound fallback takes 250 samples a CPU second, too few for the test's power.
            if (!perfEventsAvailable())
                GTEST_SKIP() << "perf task-clock events unavailable: the 250 Hz fallback gives too few samples";
            base = installed(dir, "diff_work", "base");
            slow = installed(dir, "diff_work_slow", "slow");
        }
        TempDir dir;
        std::string base, slow; // two builds of diff_work, the second with south() slowed
    };

    TEST_F(DiffTest, TwoRunsOfOneBuildDifferNowhereAndASlowedFunctionIsTheOnlyOneFlagged)
    {
        const std::string first = profileOf(dir, base, "first");
        const std::string second = profileOf(dir, base, "second");
        const std::string slowed = profileOf(dir, slow, "slowed");
        const RunResult same = runProgram({ PPEOUT, "--diff", first, second, "-" });
        ASSERT_EQ(same.status, 0) << same.err;
        for (const char* table : { "COMPARISON BY MODULE", "COMPARISON BY FUNCTION" }) {
            const std::vector<DiffRow> rows = diffRows(same.out, table);
            ASSERT_FALSE(rows.empty()) << table << "\n" << same.out;
            EXPECT_EQ(significantNames(rows), "") << same.out;
        }
        // Two runs of one build: the program time's change is the machine's, not a finding.
        std::smatch programTime;
        ASSERT_TRUE(std::regex_search(same.out, programTime, std::regex("Program time, s .*"))) << same.out;
        EXPECT_EQ(programTime.str().find("significant"), std::string::npos) << programTime.str();
        EXPECT_NE(programTime.str().find("run-to-run variation"), std::string::npos) << programTime.str();
        const std::vector<DiffRow> sameRows = diffRows(same.out, "COMPARISON BY FUNCTION");
        for (const char* f : { "north", "east", "south", "west" }) {
            const DiffRow* r = find(sameRows, f);
            ASSERT_NE(r, nullptr) << f << "\n" << same.out;
            EXPECT_NEAR(r->basePercent, 25, 5) << f << ": the four do equal work\n" << same.out;
            EXPECT_GT(r->baseSeconds / r->error, 10) << f << ": too few samples for the test to mean anything";
        }
        // Another build: its own DWARF formats it; rows are matched by name, though the slowed
        // south()'s larger code moved the other three.
        const auto before = addressesOf(first);
        const auto after = addressesOf(slowed);
        for (const char* f : { "north", "east", "west" }) {
            ASSERT_TRUE(before.count(f) && after.count(f)) << f;
            EXPECT_NE(before.at(f), after.at(f)) << f << " is at the same address in both builds";
        }
        const RunResult diff = runProgram({ PPEOUT, "--diff", first, slowed, "-" });
        ASSERT_EQ(diff.status, 0) << diff.err;
        EXPECT_NE(diff.err.find("another build of diff_work"), std::string::npos) << diff.err;
        const std::vector<DiffRow> rows = diffRows(diff.out, "COMPARISON BY FUNCTION");
        const DiffRow* south = find(rows, "south");
        ASSERT_NE(south, nullptr) << diff.out;
        EXPECT_TRUE(south->significant) << diff.out;
        EXPECT_NEAR(south->newPercent, 40, 6) << "twice a quarter's work is 2/5 of the whole\n" << diff.out;
        EXPECT_NEAR(south->newSeconds / south->baseSeconds, 2.0, 0.4) << diff.out;
        EXPECT_EQ(significantNames(rows), south->name + "; ") << diff.out;
        EXPECT_EQ(south->moved, "slower") << diff.out;
        for (const char* f : { "north", "east", "west" }) {
            EXPECT_LT(find(rows, f)->deltaPercent, 0) << f << ": its share fell (its time did not grow)\n" << diff.out;
            EXPECT_EQ(find(rows, f)->moved, "smaller share only") << f << "\n" << diff.out;
        }
    }

    // The example diff_work.c built twice by the real compiler into dir/BUILD/diff_faster: the
    // second build with -DPPE_ALL_FASTER=1 (every function faster, south least).
    std::string compiledFaster(const TempDir& dir, const std::string& build, bool rebuilt)
    {
        std::filesystem::create_directories(dir.file(build));
        const std::string exe = dir.file(build + "/diff_faster");
        const RunResult cc = runProgram({ "gcc", "-O2", "-g", rebuilt ? "-DPPE_ALL_FASTER=1" : "-DPPE_ALL_FASTER=0",
            "-o", exe, std::string(PPE_SOURCE_DIR) + "/examples/diff_work.c" });
        EXPECT_EQ(cc.status, 0) << cc.err;
        return exe;
    }

    // Issue 34: between two builds where every function got faster, the one that gained least
    // gained share. Its time fell by a quarter, far beyond the error: the time's own verdict says
    // so, and the row says it got faster, less than the rest.
    TEST_F(DiffTest, AFunctionFasterButLessThanTheRestHasAVerdictOnItsTime)
    {
        const std::string first = compiledFaster(dir, "before", false);
        const std::string second = compiledFaster(dir, "after", true);
        std::vector<std::string> ppe;
        for (const std::string& exe : { first, second }) {
            ppe.push_back(dir.file("p" + std::to_string(ppe.size()) + ".ppe"));
            const RunResult run = runProgram({ exe, "150" },
                { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_OUT", ppe.back() }, { "LD_PRELOAD", PPE_LIBRARY } });
            ASSERT_EQ(run.status, 0) << run.err;
        }
        const RunResult diff = runProgram({ PPEOUT, "--diff", ppe[0], ppe[1], "-" });
        ASSERT_EQ(diff.status, 0) << diff.err;
        const std::vector<DiffRow> rows = diffRows(diff.out, "COMPARISON BY FUNCTION");
        const DiffRow* south = find(rows, "south");
        ASSERT_NE(south, nullptr) << diff.out;
        EXPECT_NEAR(south->newSeconds / south->baseSeconds, 0.75, 0.12) << diff.out;
        EXPECT_NEAR(south->newPercent, 300.0 / 7, 5) << diff.out;
        EXPECT_GT(south->deltaPercent, 0) << diff.out;
        EXPECT_LT(south->timeZ, -4) << diff.out;
        EXPECT_LT(south->timeP, 0.05) << "the time's verdict, not p 1\n" << diff.out;
        EXPECT_LT(south->shareP, 0.05) << diff.out;
        EXPECT_EQ(south->moved, "faster, less than the rest") << diff.out;
        for (const char* f : { "north", "east", "west" }) {
            ASSERT_NE(find(rows, f), nullptr) << f << "\n" << diff.out;
            EXPECT_EQ(find(rows, f)->moved, "faster") << f << ": a third of the time, a smaller share\n" << diff.out;
        }
    }

    TEST_F(DiffTest, WithTheMapOfEachBuild)
    {
        const std::string first = profileOf(dir, base, "first");
        const std::string slowed = profileOf(dir, slow, "slowed");
        const RunResult diff = runProgram({ PPEOUT, "--by", "function", "--diff", first, "--base-map",
            kExamples + "/diff_work.map", kExamples + "/diff_work_slow.map", slowed, dir.file("diff.txt") });
        ASSERT_EQ(diff.status, 0) << diff.err;
        const std::string text = readFile(dir.file("diff.txt"));
        EXPECT_EQ(text.find("COMPARISON BY MODULE"), std::string::npos) << "--by function: one table";
        const std::vector<DiffRow> rows = diffRows(text, "COMPARISON BY FUNCTION");
        const DiffRow* south = find(rows, "south");
        ASSERT_NE(south, nullptr) << text;
        EXPECT_TRUE(south->significant) << text;
        EXPECT_EQ(significantNames(rows), south->name + "; ") << text;
    }

    // The JSON of --diff checked against the schema; prints the program's in-range counts and
    // each table's rows whose time and share changed together: "KIND NAME MOVEMENT".
    const std::string kJsonFlagged = schemaCheckedScript(R"(
d = report["diff"]
print("in_range", d["base"]["in_range"], d["new"]["in_range"])
for t in d["tables"]:
    for r in t["rows"]:
        if r["significant"]:
            print(t["kind"], r["name"], r["movement"])
)");

    // The text's In range counts, "BASE NEW".
    std::string inRangeOf(const std::string& text)
    {
        std::smatch m;
        std::regex_search(text, m, std::regex(R"(In range count\s+(\d+)\s+(\d+))"));
        return m.size() == 3 ? m[1].str() + " " + m[2].str() : "";
    }

    // Issue 38: every format shows the comparison, and flags what the text flags: south() alone.
    TEST_F(DiffTest, EveryFormatShowsTheComparisonAndFlagsTheSlowedFunction)
    {
        const std::string first = profileOf(dir, base, "first");
        const std::string slowed = profileOf(dir, slow, "slowed");
        std::map<std::string, std::string> out;
        for (const char* format : { "ppl", "json", "csv", "html" }) {
            const RunResult r = runProgram({ PPEOUT, "--format", format, "--diff", first, slowed, "-" });
            ASSERT_EQ(r.status, 0) << format << ": " << r.err;
            out[format] = r.out;
        }
        const std::vector<DiffRow> rows = diffRows(out["ppl"], "COMPARISON BY FUNCTION");
        const DiffRow* south = find(rows, "south");
        ASSERT_NE(south, nullptr) << out["ppl"];
        ASSERT_EQ(significantNames(rows), south->name + "; ") << out["ppl"];

        std::vector<std::string> flagged; // "function NAME MOVEMENT" per format
        for (const CsvRow& row : csvRows(out["csv"])) {
            if (row["kind"] == "program") {
                EXPECT_EQ(row["base_hits"] + " " + row["new_hits"], inRangeOf(out["ppl"])) << out["csv"];
            }
            if (row["kind"] == "row" && row["significant"] == "true")
                flagged.push_back(row["table"] + " " + row["name"] + " " + row["moved"]);
        }
        EXPECT_EQ(flagged, std::vector<std::string> { "function " + south->name + " slower" }) << out["csv"];

        std::ofstream(dir.file("diff.json")) << out["json"];
        const RunResult json = runProgram(
            { "python3", "-c", kJsonFlagged, PPE_SOURCE_DIR "/docs/report.schema.json", dir.file("diff.json") });
        ASSERT_EQ(json.status, 0) << json.err;
        if (json.out.rfind("SKIP ", 0) != 0) {
            EXPECT_EQ(json.out, "in_range " + inRangeOf(out["ppl"]) + "\nfunction " + south->name + " slower\n");
        }

        // The page: one marked row in the function table, south()'s, with its word.
        const std::string html = out["html"];
        const size_t functions = html.find("<table class=\"sortable diff\" data-kind=\"function\">");
        ASSERT_NE(functions, std::string::npos) << html.substr(0, 4000);
        const std::string table = html.substr(functions, html.find("</table>", functions) - functions);
        std::smatch marked;
        ASSERT_TRUE(std::regex_search(table, marked, std::regex(R"(<tr class="significant">.*</tr>)"))) << table;
        EXPECT_NE(marked.str().find("<td class=\"name\">" + south->name + "</td>"), std::string::npos) << table;
        EXPECT_NE(marked.str().find("<td class=\"moved\">slower</td>"), std::string::npos) << table;
        EXPECT_EQ(marked.suffix().str().find("class=\"significant\""), std::string::npos) << table;
    }

    TEST_F(DiffTest, CallgrindHasNoComparisonAndSaysSo)
    {
        const std::string run = profileOf(dir, base, "run");
        const RunResult r = runProgram({ PPEOUT, "--format", "callgrind", "--diff", run, run, "-" });
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.out, "");
        EXPECT_NE(r.err.find("--format callgrind: a callgrind profile holds one run"), std::string::npos) << r.err;
    }

    TEST_F(DiffTest, BadBaseProfilesAreOneLineErrorsNamingTheFile)
    {
        const std::string run = profileOf(dir, base, "run");
        std::ofstream(dir.file("notes.txt")) << "not a profile\n";
        for (const std::string& bad : { dir.file("missing.ppe"), dir.file("notes.txt") }) {
            const RunResult r = runProgram({ PPEOUT, "--diff", bad, run, "-" });
            EXPECT_EQ(r.status, 1) << bad;
            EXPECT_EQ(r.out, "") << bad;
            EXPECT_NE(r.err.find("ppeout: error: " + bad), std::string::npos) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        }
        const RunResult alone = runProgram({ PPEOUT, "--base-map", kExamples + "/diff_work.map", run, "-" });
        EXPECT_EQ(alone.status, 1) << alone.err;
        const RunResult over = runProgram({ PPEOUT, "--diff", run, run, run });
        EXPECT_EQ(over.status, 1) << "the output would replace an input";
    }

    TEST_F(DiffTest, ProfilesOfDifferentProgramsAreComparedWithAWarning)
    {
        const std::string work = profileOf(dir, base, "work");
        const RunResult simp = runProgram({ kExamples + "/simp", "1000003" },
            { { "PPE_ON", "1" }, { "PPE_MODE", "1" }, { "PPE_OUT", dir.file("simp.ppe") } });
        ASSERT_EQ(simp.status, 0) << simp.err;
        const RunResult r = runProgram({ PPEOUT, "--diff", dir.file("simp.ppe"), work, "-" });
        EXPECT_EQ(r.status, 0) << r.err;
        EXPECT_NE(r.err.find("ppeout: warning: " + dir.file("simp.ppe") + ": a profile of"), std::string::npos)
            << r.err;
        EXPECT_NE(r.out.find("(no hits in base)"), std::string::npos) << r.out;
    }

} // namespace
} // namespace ppe::testing
