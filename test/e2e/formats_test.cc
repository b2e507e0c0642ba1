// ppeout --format json, csv and callgrind on a real profile of the simp example, read back by the
// tools users have: callgrind_annotate (valgrind), python3-jsonschema against docs/report.schema.json,
// and a CSV reader; and the progress line on a terminal (script gives a pty) and off one.
#include "ppe/formatter/make_report.h"

#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fcntl.h>
#include <map>
#include <regex>
#include <sstream>
#include <unistd.h>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;

    // A profile of simp with at least 300 in-range samples (growing the number, not waiting for time).
    std::string simpProfile(const TempDir& dir)
    {
        for (const char* prime : { "100000000000000003", "1000000000000000003", "9223372036854775783" }) {
            const RunResult run
                = runProgram({ PPE_LAUNCHER, "-o", dir.file("s.ppe"), "--mode", "cpu", kExamples + "/simp", prime });
            EXPECT_EQ(run.status, 0) << run.err;
            const RunResult head = runProgram({ PPEOUT, dir.file("s.ppe"), "-" });
            if (head.status == 0 && std::atoi(inRangeCount(head.out).c_str()) >= 300)
                break;
        }
        return dir.file("s.ppe");
    }

    double number(std::string text)
    {
        text.erase(std::remove(text.begin(), text.end(), ','), text.end());
        return std::stod(text);
    }

    // callgrind_annotate's function table: "file:function" -> samples.
    std::map<std::string, double> annotatedFunctions(const std::string& out)
    {
        std::map<std::string, double> functions;
        const std::regex row(R"(^ *([0-9,]+) \( *[0-9.]+%\)  (\S+):(\S+) \[)");
        std::istringstream in(out);
        std::string line;
        std::smatch m;
        while (std::getline(in, line)) {
            if (std::regex_search(line, m, row))
                functions[m[3].str()] += number(m[1].str());
        }
        return functions;
    }

    // callgrind_annotate --auto=yes's annotated source of `file`: line number -> samples.
    std::map<int, double> annotatedLines(const std::string& out, const std::string& file)
    {
        std::map<int, double> lines;
        std::istringstream in(out);
        std::string line;
        bool inside = false;
        int number_ = 1, rules = 0;
        const std::regex marker(R"(^-- line ([0-9]+) -)"), source(R"(^ *(\.|([0-9,]+) \( *[0-9.]+%\)) )");
        std::smatch m;
        while (std::getline(in, line)) {
            if (line.rfind("-- Auto-annotated source: ", 0) == 0) {
                // callgrind_annotate shows a path under its working directory relative to it.
                const std::string shown = line.substr(26);
                inside = file.size() >= shown.size()
                    && file.compare(file.size() - shown.size(), shown.size(), shown) == 0
                    && (shown.size() == file.size() || file[file.size() - shown.size() - 1] == '/');
                number_ = 1;
                rules = 0;
            } else if (inside && line.rfind("--------", 0) == 0) {
                inside = ++rules < 2; // the heading's closing rule, then the one after the source
            } else if (inside && std::regex_search(line, m, marker)) {
                number_ = std::stoi(m[1].str());
            } else if (inside && std::regex_search(line, m, source)) {
                if (m[2].matched)
                    lines[number_] = number(m[2].str());
                ++number_;
            }
        }
        return lines;
    }

    TEST(Formats, CallgrindAnnotateShowsTheReportsFunctionsAndLines)
    {
        if (!haveTool("callgrind_annotate"))
            GTEST_SKIP() << "callgrind_annotate not installed (Debian: valgrind)";
        TempDir dir;
        const std::string ppe = simpProfile(dir);
        const RunResult ppl = runProgram({ PPEOUT, "--by", "function", ppe, "-" });
        ASSERT_EQ(ppl.status, 0) << ppl.err;
        const RunResult cg = runProgram({ PPEOUT, "--format", "callgrind", ppe, dir.file("s.callgrind") });
        ASSERT_EQ(cg.status, 0) << cg.err;
        const RunResult annotated
            = runProgram({ "callgrind_annotate", "--threshold=100", "--auto=yes", dir.file("s.callgrind") });
        ASSERT_EQ(annotated.status, 0) << annotated.err;
        EXPECT_EQ(annotated.err.find("WARNING"), std::string::npos) << annotated.err;

        // The same functions with the same samples, the busiest first.
        const std::vector<Row> rows = moduleRows(ppl.out);
        const std::map<std::string, double> functions = annotatedFunctions(annotated.out);
        ASSERT_FALSE(rows.empty()) << ppl.out;
        EXPECT_EQ(rows[0].name, "sd") << ppl.out;
        for (const Row& r : rows)
            EXPECT_EQ(functions.count(r.name) ? functions.at(r.name) : -1, r.hits) << r.name << "\n" << annotated.out;

        // The same samples on the same source lines, read from the source file itself.
        const std::vector<ModuleText> text = programText(ppl.out);
        ASSERT_FALSE(text.empty()) << ppl.out;
        ASSERT_FALSE(text[0].files.empty());
        const std::string heading = text[0].files[0].heading; // "File /path/simp.c ..."
        const std::string file
            = heading.substr(5, heading.find("  ") == std::string::npos ? std::string::npos : heading.find("  ") - 5);
        const std::map<int, double> lines = annotatedLines(annotated.out, file);
        ASSERT_FALSE(lines.empty()) << "no annotated source of " << file << "\n" << annotated.out;
        size_t compared = 0;
        for (const TextRow& r : text[0].rows) {
            if (r.hits <= 0)
                continue;
            EXPECT_EQ(lines.count(r.line) ? lines.at(r.line) : -1, r.hits) << "line " << r.line;
            ++compared;
        }
        EXPECT_GT(compared, 0u);
        EXPECT_EQ(busiest(text[0].rows).line,
            std::max_element(lines.begin(), lines.end(), [](auto& a, auto& b) { return a.second < b.second; })->first);
    }

    // Each function of the executable's part (the first ob=) of a callgrind file, with its fl= file.
    std::map<std::string, std::string> callgrindFiles(const std::string& text)
    {
        std::map<std::string, std::string> fileOf, names; // function -> file; "(N)" -> file name
        std::istringstream in(text);
        std::string file;
        int objects = 0;
        static const std::regex compressed(R"(^(\(\d+\))(?: (.*))?$)");
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            const std::string rest = line.size() > 3 ? line.substr(3) : "";
            if (line.starts_with("ob="))
                ++objects;
            else if (line.starts_with("fl=") && std::regex_match(rest, m, compressed))
                file = m[2].matched ? (names[m[1]] = m[2]) : names[m[1]];
            else if (line.starts_with("fn=") && objects == 1 && std::regex_match(rest, m, compressed))
                fileOf[m[2]] = file;
        }
        return fileOf;
    }

    // Issue 34: a function without program text (below the line threshold, here nearly all) is
    // still in its source file, which DWARF knows: fl= names it rather than "???".
    TEST(Formats, CallgrindNamesTheSourceFileOfFunctionsWithoutProgramText)
    {
        TempDir dir;
        const std::string ppe = simpProfile(dir);
        const RunResult cg = runProgram({ PPEOUT, "--format", "callgrind", "--line-threshold", "100", ppe, "-" });
        ASSERT_EQ(cg.status, 0) << cg.err;
        const std::map<std::string, std::string> files = callgrindFiles(cg.out);
        ASSERT_TRUE(files.count("sd")) << cg.out;
        size_t named = 0;
        for (const auto& [function, file] : files) {
            if (function.starts_with("("))
                continue; // (no module): no function, no file
            EXPECT_TRUE(file.ends_with("/simp.c")) << function << " in " << file << "\n" << cg.out;
            ++named;
        }
        EXPECT_GT(named, 0u) << cg.out;
    }

    // The JSON report checked against the schema and its numbers printed exactly (repr) by python.
    const char* const kJsonCheck = R"(
import json, sys
try:
    import jsonschema
except ImportError:
    print("SKIP python3-jsonschema not installed"); sys.exit(0)
schema = json.load(open(sys.argv[1]))
report = json.load(open(sys.argv[2]))
jsonschema.Draft202012Validator.check_schema(schema)
jsonschema.Draft202012Validator(schema).validate(report)
print("in_range", report["in_range"])
for m in report["modules"]:
    print("module", m["name"], repr(float(m["hits"])), repr(float(m["percent"])), repr(float(m["error"])),
          repr(float(m["accumulated"])))
for m in report["lines"]:
    for f in m["files"]:
        for r in f["rows"]:
            if r["hits"]:
                print("line", m["name"], r["line"], repr(float(r["hits"])), repr(float(r["accumulated"])))
)";

    TEST(Formats, JsonValidatesAgainstTheSchemaWithTheModelsNumbers)
    {
        if (!haveTool("python3"))
            GTEST_SKIP() << "python3 not installed";
        TempDir dir;
        const std::string ppe = simpProfile(dir);
        const RunResult json
            = runProgram({ PPEOUT, "--format", "json", "--by", "function", "-v", ppe, dir.file("s.json") });
        ASSERT_EQ(json.status, 0) << json.err;
        // The notes ppeout printed (-v) are in the JSON too.
        const std::string written = readFile(dir.file("s.json"));
        EXPECT_NE(json.err.find("DWARF units"), std::string::npos) << json.err;
        EXPECT_NE(written.find("\"kind\": \"note\""), std::string::npos) << written.substr(written.rfind("messages"));
        EXPECT_NE(written.find("DWARF units"), std::string::npos);
        const RunResult check = runProgram(
            { "python3", "-c", kJsonCheck, PPE_SOURCE_DIR "/docs/report.schema.json", dir.file("s.json") });
        ASSERT_EQ(check.status, 0) << check.err;
        if (check.out.rfind("SKIP ", 0) == 0)
            GTEST_SKIP() << check.out.substr(5);

        // The same report made here, in this process, from the same profile.
        formatter::ReportRequest request;
        request.profiles = { ppe };
        request.by = formatter::ModuleKind::Function;
        formatter::Messages messages;
        const Result<formatter::Report> report = formatter::makeReport(request, messages);
        ASSERT_TRUE(report) << report.error().str();
        std::string expected = fmt::format("in_range {}\n", report->profile.inRange());
        auto repr = [](double v) {
            return std::string(v == std::floor(v) ? fmt::format("{:.1f}", v) : fmt::format("{}", v));
        };
        for (const formatter::ModuleRow& m : report->modules)
            expected += fmt::format(
                "module {} {} {} {} {}\n", m.name, repr(m.hits), repr(m.percent), repr(m.error), repr(m.accumulated));
        for (const formatter::ModuleLines& m : report->lines) {
            for (const formatter::FileLines& f : m.files) {
                for (const formatter::LineRow& r : f.rows) {
                    if (r.hits)
                        expected
                            += fmt::format("line {} {} {} {}\n", m.name, r.line, repr(r.hits), repr(r.accumulated));
                }
            }
        }
        EXPECT_EQ(check.out, expected);
    }

    TEST(Formats, CsvRowsOfEachKindSumToTheTotals)
    {
        TempDir dir;
        const std::string ppe = simpProfile(dir);
        const RunResult csv = runProgram({ PPEOUT, "--format", "csv", ppe, "-" });
        ASSERT_EQ(csv.status, 0) << csv.err;
        const RunResult ppl = runProgram({ PPEOUT, ppe, "-" });
        const double inRange = std::stod(inRangeCount(ppl.out));
        std::istringstream in(csv.out);
        std::string line;
        ASSERT_TRUE(std::getline(in, line));
        EXPECT_EQ(line,
            "kind,object,module,function,file,line,address,hits,percent,error,percent_of_all,accumulated,"
            "size,split_hits,text\r");
        std::map<std::string, double> sums; // "kind object module" -> hits
        double counts = 0;
        while (std::getline(in, line)) {
            // Fields up to `hits` hold no comma or quote in this report (text comes last).
            std::vector<std::string> f;
            std::istringstream fields(line);
            for (std::string field; f.size() < 8 && std::getline(fields, field, ',');)
                f.push_back(field);
            ASSERT_EQ(f.size(), 8u) << line;
            if (f[0] == "count")
                counts += std::stod(f[7]);
            if (f[0] == "module" && f[1].empty())
                sums["modules"] += std::stod(f[7]);
            if (f[0] == "line" && f[1].empty())
                sums["lines of " + f[2]] += std::stod(f[7]);
        }
        EXPECT_DOUBLE_EQ(sums["modules"], inRange) << csv.out;
        formatter::ReportRequest request;
        request.profiles = { ppe };
        formatter::Messages messages;
        const Result<formatter::Report> report = formatter::makeReport(request, messages);
        ASSERT_TRUE(report) << report.error().str();
        for (const formatter::ModuleRow& r : report->modules) {
            if (sums.count("lines of " + r.name)) {
                EXPECT_NEAR(sums["lines of " + r.name], r.hits, 1e-9 * std::max(1.0, r.hits)) << r.name;
            }
        }
        EXPECT_GT(sums.count("lines of simp.c"), 0u) << csv.out;
        EXPECT_EQ(counts, double(report->profile.total));
    }

    TEST(Formats, UnknownFormatIsAOneLineError)
    {
        TempDir dir;
        const RunResult r = runProgram({ PPEOUT, "--format", "xml", dir.file("s.ppe"), dir.file("out") });
        EXPECT_EQ(r.status, 1);
        EXPECT_EQ(r.err.rfind("ppeout: error: --format xml: expected one of ppl, json, csv, callgrind, html\n", 0), 0u)
            << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
        EXPECT_FALSE(fileExists(dir.file("out")));
    }

    // A device or pipe as OUTPUT is written to, never renamed away as a file is (as root, ppeout
    // once replaced /dev/null with a plain file). A FIFO stands in for /dev/null here.
    TEST(Formats, OutputToAPipeIsWrittenNotReplaced)
    {
        TempDir dir;
        const std::string ppe = simpProfile(dir);
        ASSERT_EQ(runProgram({ "mkfifo", dir.file("fifo") }).status, 0);
        const Running reader = startProgram({ "sh", "-c", "cat " + dir.file("fifo") + " > " + dir.file("got") });
        const RunResult out = runProgram({ PPEOUT, "--format", "csv", ppe, dir.file("fifo") });
        EXPECT_EQ(out.status, 0) << out.err;
        // A ppeout that never opened the FIFO would leave the reader blocked for good: a writer's
        // open and close (refused, ENXIO, when the reader has gone) gives it its end of file.
        if (const int fd = open(dir.file("fifo").c_str(), O_WRONLY | O_NONBLOCK); fd >= 0)
            close(fd);
        EXPECT_EQ(waitProgram(reader).status, 0);
        EXPECT_EQ(readFile(dir.file("got")).rfind("kind,object,module", 0), 0u);
        EXPECT_FALSE(fileExists(dir.file("fifo.~1~")));
        EXPECT_EQ(runProgram({ "test", "-p", dir.file("fifo") }).status, 0) << "still a FIFO";
    }

    TEST(Formats, ProgressOnATerminalOnly)
    {
        TempDir dir;
        const std::string ppe = simpProfile(dir);
        // stderr a pipe: nothing but what ppeout has to say, whatever the time it takes.
        const RunResult quiet = runProgram({ PPEOUT, "--format", "json", ppe, dir.file("a.json") });
        ASSERT_EQ(quiet.status, 0);
        EXPECT_EQ(withoutBenignWarnings(quiet.err), "");
        if (!haveTool("script"))
            GTEST_SKIP() << "script (util-linux) not installed: no pseudo-terminal to test with";
        // A terminal (script's pty): the phases on one line, rewritten, and cleared at the end.
        const std::string command
            = std::string(PPEOUT) + " --progress always --format json " + ppe + " " + dir.file("b.json");
        const RunResult shown = runProgram({ "script", "-qec", command, "/dev/null" });
        ASSERT_EQ(shown.status, 0) << shown.out;
        EXPECT_NE(shown.out.find("\rppeout: reading the profile\033[K"), std::string::npos) << shown.out;
        EXPECT_NE(shown.out.find("\rppeout: rendering json\033[K"), std::string::npos) << shown.out;
        EXPECT_NE(shown.out.rfind("\r\033[K"), std::string::npos) << "the line is cleared";
        // A merge counts the profiles it reads.
        ASSERT_EQ(runProgram({ "mkdir", dir.file("many") }).status, 0);
        for (const char* copy : { "/a.ppe", "/b.ppe", "/c.ppe" })
            ASSERT_EQ(runProgram({ "cp", ppe, dir.file("many") + copy }).status, 0);
        const RunResult merged = runProgram({ "script", "-qec",
            std::string(PPEOUT) + " --progress always " + dir.file("many") + " " + dir.file("m.txt"), "/dev/null" });
        ASSERT_EQ(merged.status, 0) << merged.out;
        for (const char* counted : { "1/3", "2/3", "3/3" })
            EXPECT_NE(
                merged.out.find(std::string("\rppeout: reading profiles ") + counted + "\033[K"), std::string::npos)
                << merged.out;
        const RunResult never = runProgram({ "script", "-qec",
            std::string(PPEOUT) + " --progress never -f json " + ppe + " " + dir.file("c.json"), "/dev/null" });
        ASSERT_EQ(never.status, 0) << never.out;
        EXPECT_EQ(never.out.find("ppeout: reading"), std::string::npos) << never.out;
        EXPECT_EQ(never.out.find("\033[K"), std::string::npos) << never.out;
    }

} // namespace
} // namespace ppe::testing
