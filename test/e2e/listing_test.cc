// ppeout's third part on real programs: the examples built with -g -Wa,-adhln=NAME.lis, run
// under the collector, formatted with their maps and listings.
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;
    const std::string kSources = PPE_EXAMPLES_SOURCE;

    // Rows are in file order, the bar is scaled to the busiest line, Acc % climbs to 100.0 on the
    // last line with hits, and the hits add up to the module's.
    void expectConsistent(const ModuleText& m, unsigned width)
    {
        ASSERT_FALSE(m.rows.empty()) << m.name;
        const TextRow& top = busiest(m.rows);
        EXPECT_EQ(top.bar, width) << m.name;
        double sum = 0, previousAcc = 0;
        int previousLine = m.rows.front().line - 1;
        const TextRow* lastHit = nullptr;
        for (const TextRow& r : m.rows) {
            EXPECT_EQ(r.line, previousLine + 1) << m.name << ": every line of the text is printed";
            previousLine = r.line;
            if (r.hits <= 0)
                continue;
            sum += r.hits;
            EXPECT_NEAR(double(r.bar), r.hits / top.hits * width, 0.51) << m.name << " line " << r.line;
            EXPECT_GE(r.accumulated, previousAcc) << m.name << " line " << r.line;
            EXPECT_NEAR(r.accumulated, 100.0 * sum / m.hitsTotal, 0.06 + 100.0 * double(m.rows.size()) / m.hitsTotal)
                << m.name << " line " << r.line;
            previousAcc = r.accumulated;
            lastHit = &r;
        }
        ASSERT_NE(lastHit, nullptr);
        EXPECT_EQ(lastHit->accumulated, 100.0) << m.name;
        EXPECT_NEAR(sum, m.hitsTotal, 0.5 * double(m.rows.size())) << m.name;
    }

    // Runs simp on larger primes until the profile holds enough samples for a line analysis.
    std::string profileSimp(const TempDir& dir)
    {
        for (const char* prime : { "10000000000000061", "100000000000000003", "1000000000000000003" }) {
            const RunResult run = runProgram({ kExamples + "/simp", prime },
                { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("s.ppe") }, { "PPE_MODE", "1" } });
            EXPECT_EQ(run.status, 0) << run.err;
            const RunResult head = runProgram({ PPEOUT, kExamples + "/simp.map", dir.file("s.ppe"), "-" });
            std::smatch m;
            if (std::regex_search(head.out, m, std::regex(R"(In range count\s+(\d+))")) && std::stoi(m[1]) >= 400)
                break;
        }
        return dir.file("s.ppe");
    }

    TEST(ListingReport, SimpHotLineIsTheTestInsideTheLoop)
    {
        TempDir dir;
        const std::string ppe = profileSimp(dir);
        const RunResult out = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-", kExamples + "/simp.lis" });
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_EQ(withoutBenignWarnings(out.err), "");
        const std::vector<ModuleText> modules = programText(out.out);
        ASSERT_EQ(modules.size(), 1u) << out.out;
        const ModuleText& simp = modules[0];
        EXPECT_EQ(simp.name, "simp.c.o");
        // The whole file, and its text read from the source.
        const std::string source = kSources + "/simp.c";
        EXPECT_EQ(simp.rows.front().line, 1);
        EXPECT_EQ(simp.rows.back().line, lineOf(source, "}", lineOf(source, "return 0;")));
        EXPECT_NE(out.out.find("File " + source + "\n"), std::string::npos) << out.out;
        // `if ((num % cnt) == 0) return cnt;` twice in sd: the one inside the loop is the hot one.
        const int loop = lineOf(source, "for (cnt = 3; cnt <= lim; cnt += 2)");
        const TextRow& top = busiest(simp.rows);
        EXPECT_EQ(trim(top.text), "if ((num % cnt) == 0) return cnt;") << out.out;
        EXPECT_EQ(top.line, lineOf(source, "if ((num % cnt) == 0) return cnt;", loop)) << out.out;
        EXPECT_GT(top.hits, 0.5 * simp.hitsTotal) << out.out;
        expectConsistent(simp, 40);
    }

    TEST(ListingReport, FortranHotLoopTopsEachSubroutine)
    {
        TempDir dir;
        const RunResult run
            = runProgram({ PPE_LAUNCHER, "-o", dir.file("k.ppe"), "--mode", "cpu", kExamples + "/ktest_gold", "2" });
        ASSERT_EQ(run.status, 0) << run.err;
        const RunResult out = runProgram({ PPEOUT, "--bar-width", "25", kExamples + "/ktest_gold.map",
            dir.file("k.ppe"), "-", kExamples + "/ktest_gold.lis" });
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_EQ(withoutBenignWarnings(out.err), "");
        const std::vector<ModuleText> modules = programText(out.out);
        ASSERT_GE(modules.size(), 3u) << out.out;
        const std::string source = kSources + "/ktest.f90";
        // Each subroutine's text runs from its heading to its end; its busiest line is in its
        // innermost loop.
        struct Expect {
            std::string module, heading, innerLoop, end;
        };
        for (const Expect& e : { Expect { "gram_", "subroutine gram(", "do j = k + 1, n", "end subroutine gram" },
                 Expect { "mxm_", "subroutine mxm(", "do k = 1, n", "end subroutine mxm" },
                 Expect { "bsort_", "subroutine bsort(", "do j = 1, i", "end subroutine bsort" } }) {
            auto m
                = std::find_if(modules.begin(), modules.end(), [&](const ModuleText& t) { return t.name == e.module; });
            ASSERT_NE(m, modules.end()) << e.module << "\n" << out.out;
            const int heading = lineOf(source, e.heading);
            EXPECT_LE(m->rows.front().line, heading) << e.module;
            EXPECT_EQ(m->rows.back().line, lineOf(source, e.end)) << e.module;
            const TextRow& top = busiest(m->rows);
            EXPECT_GT(top.line, lineOf(source, e.innerLoop, heading)) << e.module << ": " << top.text;
            EXPECT_LT(top.line, lineOf(source, e.end)) << e.module << ": " << top.text;
            expectConsistent(*m, 25);
        }
    }

    TEST(ListingReport, InlinedHeaderCodeUnderItsOwnFile)
    {
        TempDir dir;
        const RunResult run
            = runProgram({ PPE_LAUNCHER, "-o", dir.file("i.ppe"), "--mode", "cpu", kExamples + "/inlining", "600" });
        ASSERT_EQ(run.status, 0) << run.err;
        const RunResult out
            = runProgram({ PPEOUT, kExamples + "/inlining.map", dir.file("i.ppe"), "-", kExamples + "/inlining.lis" });
        ASSERT_EQ(out.status, 0) << out.err;
        const std::string header = kSources + "/inlining/kernels.h";
        const std::vector<TextRow> rows = otherFileRows(out.out, header);
        ASSERT_FALSE(rows.empty()) << out.out;
        // dot()'s loop, inlined into run(), carries the most hits of the whole module.
        const TextRow* top = &rows.front();
        for (const TextRow& r : rows)
            top = r.hits > top->hits ? &r : top;
        const int dot = lineOf(header, "inline T dot(");
        EXPECT_GT(top->line, dot) << out.out;
        EXPECT_LT(top->line, lineOf(header, "return sum;", dot)) << out.out;
        EXPECT_EQ(top->bar, 40u) << out.out;
        const std::vector<ModuleText> modules = programText(out.out);
        ASSERT_EQ(modules.size(), 1u);
        for (const TextRow& r : modules[0].rows)
            EXPECT_LT(r.hits, top->hits) << "main.cc line " << r.line;
        EXPECT_EQ(rows.back().accumulated, 100.0) << out.out;
    }

    TEST(ListingReport, ListingOfAnotherBuildIsRefusedAndTheReportStaysComplete)
    {
        TempDir dir;
        const std::string ppe = profileSimp(dir);
        const RunResult plain = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-" });
        const RunResult out = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-", kExamples + "/simp_O0.lis" });
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_NE(out.err.find("ppeout: warning: " + kExamples + "/simp_O0.lis: "), std::string::npos) << out.err;
        EXPECT_NE(out.err.find("a listing of another build, ignored"), std::string::npos) << out.err;
        EXPECT_EQ(out.out, plain.out) << "the module table as without the listing, no program text";
    }

    TEST(ListingReport, PatternsSkipWhatIsNotAListing)
    {
        TempDir dir;
        const std::string ppe = profileSimp(dir);
        std::filesystem::create_directory(dir.file("lib"));
        std::filesystem::copy_file(kExamples + "/simp.lis", dir.file("lib/simp.lis"));
        std::ofstream(dir.file("lib/notes.lis")) << "Notes on the simp run.\nNothing to see.\n";
        std::filesystem::copy_file(kExamples + "/simp", dir.file("lib/binary.lis"));
        std::ofstream(dir.file("lib/empty.lis")).flush();
        std::filesystem::copy_file(kExamples + "/simp.map", dir.file("lib/simp_map.lis"));
        const std::string output = dir.file("lib/simp_ppe.lis"); // matched by the pattern on the second run
        for (int run = 0; run < 2; ++run) {
            const RunResult out = runProgram(
                { PPEOUT, kExamples + "/simp.map", ppe, output, dir.file("lib/*.lis"), dir.file("nothing/*.lis") });
            ASSERT_EQ(out.status, 0) << out.err;
            for (const char* name : { "notes.lis", "binary.lis", "empty.lis", "simp_map.lis" }) {
                EXPECT_NE(
                    out.err.find("ppeout: note: " + dir.file("lib/") + name + ": not an assembler listing, skipped"),
                    std::string::npos)
                    << out.err;
            }
            EXPECT_NE(out.err.find("ppeout: warning: " + dir.file("nothing/*.lis") + ": no file matches this pattern"),
                std::string::npos)
                << out.err;
            EXPECT_EQ(out.err.find(output + ": the output file, skipped") != std::string::npos, run == 1) << out.err;
            const std::vector<ModuleText> modules = programText(readFile(output));
            ASSERT_EQ(modules.size(), 1u) << readFile(output);
            expectConsistent(modules[0], 40);
        }
        EXPECT_TRUE(fileExists(output + ".~1~")) << "the first report is kept";
    }

    TEST(ListingReport, ThresholdOptionSelectsModules)
    {
        TempDir dir;
        const RunResult run
            = runProgram({ PPE_LAUNCHER, "-o", dir.file("k.ppe"), "--mode", "cpu", kExamples + "/ktest_lld" });
        ASSERT_EQ(run.status, 0) << run.err;
        auto modulesAt = [&](const std::string& threshold) {
            const RunResult out = runProgram({ PPEOUT, "--line-threshold", threshold, kExamples + "/ktest_lld.map",
                dir.file("k.ppe"), "-", kExamples + "/ktest_lld.lis" });
            EXPECT_EQ(out.status, 0) << out.err;
            return programText(out.out).size();
        };
        EXPECT_EQ(modulesAt("100"), 0u) << "no module has all the time";
        EXPECT_GE(modulesAt("1"), 3u);
        EXPECT_GE(modulesAt("0"), modulesAt("1"));
        for (const char* wrong : { "-5", "101", "x" }) {
            const RunResult bad = runProgram(
                { PPEOUT, "--line-threshold", wrong, kExamples + "/ktest_lld.map", dir.file("k.ppe"), "-" });
            EXPECT_EQ(bad.status, 1) << wrong;
            EXPECT_NE(bad.err.find("ppeout: error: "), std::string::npos) << bad.err;
        }
    }

    // The shell commands of README.md's Usage block, each as written (continuation lines joined,
    // the comment after `#` left out), the ones that start with one of `starts`.
    std::vector<std::string> readmeCommands(const std::vector<std::string>& starts)
    {
        std::istringstream readme(readFile(kSources + "/../README.md"));
        std::string line, command;
        std::vector<std::string> commands;
        bool inUsage = false;
        while (std::getline(readme, line)) {
            inUsage = (inUsage && line != "## Settings" && !line.starts_with("## ")) || line == "## Usage";
            if (!inUsage || (command.empty() && !line.starts_with("$ ")))
                continue;
            command += command.empty() ? line.substr(2) : line;
            if (command.ends_with("\\")) {
                command.pop_back();
                continue;
            }
            command = command.substr(0, command.find(" #"));
            for (const std::string& start : starts) {
                if (command.starts_with(start))
                    commands.push_back(command);
            }
            command.clear();
        }
        return commands;
    }

    // Issue 18: the README's own usage (`cc -o simp examples/simp.c ... -Wa,-adhln=simp.lis`) links
    // the compiler's temporary object /tmp/ccXXXXXX.o, not simp.o; the listing is matched to it by
    // its source and its section sizes, and the report has its program text.
    TEST(ListingReport, TheReadmeUsageGetsItsProgramText)
    {
        const std::vector<std::string> commands
            = readmeCommands({ "cc ", "PPE_ON=1 ./simp", "ppeout simp.map simp.ppe simp.ppl simp.lis" });
        ASSERT_EQ(commands.size(), 3u) << "README.md's Usage block changed";
        TempDir dir;
        std::filesystem::create_directory(dir.file("examples"));
        std::filesystem::copy_file(kSources + "/simp.c", dir.file("examples/simp.c"));
        const std::string libraries = std::filesystem::path(PPE_LIBRARY).parent_path().string();
        const std::string tools = std::filesystem::path(PPEOUT).parent_path().string();
        const std::vector<EnvChange> env = { { "LIBRARY_PATH", libraries }, { "LD_LIBRARY_PATH", libraries },
            { "PATH", tools + ":" + std::getenv("PATH") } };
        RunResult last;
        for (const std::string& command : commands) {
            last = runProgram({ "/bin/sh", "-c", command }, env, dir.path());
            ASSERT_EQ(last.status, 0) << command << "\n" << last.err;
        }
        EXPECT_EQ(withoutBenignWarnings(last.err).find("warning"), std::string::npos) << last.err;
        const std::string report = readFile(dir.file("simp.ppl"));
        const std::vector<ModuleText> text = programText(report);
        ASSERT_EQ(text.size(), 1u) << report;
        EXPECT_EQ(text[0].origin, "listing simp.lis") << report;
        EXPECT_EQ(text[0].name.find("simp.c (cc"), 0u) << "named after its source: " << text[0].name;
        EXPECT_NE(busiest(text[0].rows).text.find("num % cnt"), std::string::npos) << report;
    }

    // A profile of one of the C++ template programs, formatted with its map and listing.
    struct CxxReport {
        RunResult out;
        std::vector<Row> rows;
    };

    CxxReport cxxReport(TempDir& dir, const std::string& variant)
    {
        const std::string program = std::string(PPE_CXX_TEMPLATES) + "_" + variant;
        const RunResult run
            = runProgram({ PPE_LAUNCHER, "-o", dir.file("t.ppe"), "--mode", "cpu", program, "100000000" });
        EXPECT_EQ(run.status, 0) << run.err;
        const RunResult out = runProgram(
            { PPEOUT, program + ".map", dir.file("t.ppe"), "-", program + ".lis", "--line-threshold", "5" });
        EXPECT_EQ(out.status, 0) << out.err;
        EXPECT_EQ(withoutBenignWarnings(out.err).find("warning"), std::string::npos) << out.err;
        return { out, moduleRows(out.out) };
    }

    // Issue 25: without -ffunction-sections the COMDAT sections of templates (.text._ZN...) belong
    // to their unit's module, and the listing, whose _Rb_tree section names gas cut alike, is used.
    TEST(CxxMapMode, TemplatesBelongToTheirUnitAndTheListingIsUsed)
    {
        TempDir dir;
        const CxxReport r = cxxReport(dir, "plain");
        ASSERT_FALSE(r.rows.empty()) << r.out.out;
        EXPECT_EQ(r.rows[0].name, "cxx_templates.cc.o") << r.out.out;
        EXPECT_GT(r.rows[0].percent, 95.0) << r.out.out;
        for (const Row& row : r.rows)
            EXPECT_FALSE(row.name.starts_with("_Z")) << row.name;
        const std::vector<ModuleText> text = programText(r.out.out);
        ASSERT_FALSE(text.empty()) << r.out.out;
        EXPECT_EQ(text[0].origin.rfind("listing ", 0), 0u) << text[0].origin;
        const int loop = lineOf(kSources + "/../test/e2e/cxx_templates.cc", "for (int i = 0; i < params->rounds");
        EXPECT_GE(busiest(text[0].rows).line, loop) << "the template's loop is the busiest code";
        EXPECT_LE(busiest(text[0].rows).line, loop + 5) << "the template's loop is the busiest code";
    }

    // With -ffunction-sections the function modules are demangled, the listing is placed, and each
    // function's program text is its own lines with a few lines of heading, not its file from line 1.
    TEST(CxxMapMode, FunctionModulesAreDemangledWithTheirOwnLines)
    {
        TempDir dir;
        const CxxReport r = cxxReport(dir, "ffs");
        ASSERT_GE(r.rows.size(), 3u) << r.out.out;
        // Demangled, and shortened in the middle to keep the table aligned under 160 columns.
        for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(r.rows[i].name.find("very_long_namespace_name_for_"), 0u) << r.rows[i].name;
            EXPECT_NE(r.rows[i].name.find("..."), std::string::npos) << r.rows[i].name;
            EXPECT_TRUE(r.rows[i].name.ends_with("SearchParameters*)")) << r.rows[i].name;
        }
        std::istringstream lines(r.out.out.substr(0, r.out.out.find("Program text.")));
        for (std::string line; std::getline(lines, line);)
            EXPECT_LT(line.size(), 160u) << line;
        for (const Row& row : r.rows)
            EXPECT_FALSE(row.name.starts_with("_Z")) << row.name;
        const std::string source = kSources + "/../test/e2e/cxx_templates.cc";
        const int opening = lineOf(source, "inlinedSearchLoopWithAVeryLongNameIndeed(SearchParameters");
        const int closing = lineOf(source, "        return x;", opening) + 1;
        const std::vector<ModuleText> text = programText(r.out.out);
        ASSERT_GE(text.size(), 3u) << r.out.out;
        for (size_t i = 0; i < 3; ++i) {
            EXPECT_EQ(text[i].name.find("very_long_namespace_name_for_regular_expressions::"
                                        "DeterministicFiniteAutomatonWithAVeryLongName<"),
                0u)
                << "the heading has the whole name: " << text[i].name;
            EXPECT_EQ(text[i].origin.rfind("listing ", 0), 0u) << text[i].origin;
            ASSERT_FALSE(text[i].rows.empty()) << text[i].name;
            EXPECT_GE(text[i].rows.front().line, opening - 3) << text[i].name;
            EXPECT_LE(text[i].rows.front().line, opening) << text[i].name;
            EXPECT_EQ(text[i].rows.back().line, closing) << text[i].name;
            EXPECT_EQ(text[i].files.size(), 1u) << text[i].name << ": its file once";
        }
    }

} // namespace
} // namespace ppe::testing
