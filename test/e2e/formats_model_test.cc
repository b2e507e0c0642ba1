// The formats checked against the report model makeReport gives in this process, on the reports
// where they are easiest to get wrong: shared objects given their own analysis (examples/mathlib
// spends 95 % of its time in libm), code inlined from a header (examples/inlining), a map with
// listings, and --asm. callgrind_annotate's function totals, the CSV's sums (exact, per object,
// module and line) and every number of the JSON.
#include "ppe/formatter/make_report.h"

#include "csv_rows.h"
#include "json_schema_check.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace ppe::testing {
namespace {

    namespace pf = ppe::formatter;

    const std::string kExamples = PPE_EXAMPLES_DIR;

    pf::Report model(const pf::ReportRequest& request)
    {
        pf::Messages messages;
        Result<pf::Report> report = pf::makeReport(request, messages);
        EXPECT_TRUE(report) << report.error().str();
        return report ? std::move(*report) : pf::Report {};
    }

    pf::ReportRequest request(const std::string& ppe, pf::ModuleKind by, bool instructions = false)
    {
        pf::ReportRequest r;
        r.profiles = { ppe };
        r.by = by;
        r.instructions = instructions;
        return r;
    }

    // A profile of `program` with at least `samples` samples where `enough` looks (more work, not
    // more time, until it has them).
    std::string profile(const TempDir& dir, const std::string& program, const std::vector<std::string>& scales,
        double samples, double (*enough)(const pf::Report&))
    {
        const std::string ppe = dir.file(program + ".ppe");
        for (const std::string& scale : scales) {
            const RunResult run
                = runProgram({ PPE_LAUNCHER, "-o", ppe, "--mode", "cpu", kExamples + "/" + program, scale });
            EXPECT_EQ(run.status, 0) << run.err;
            if (enough(model(request(ppe, pf::ModuleKind::Function))) >= samples)
                break;
        }
        return ppe;
    }

    double libmHits(const pf::Report& r)
    {
        for (const pf::ObjectAnalysis& a : r.objectAnalyses) {
            if (a.name.starts_with("libm."))
                return a.hits;
        }
        return 0;
    }

    double inRange(const pf::Report& r) { return double(r.profile.inRange()); }

    std::string mathlibProfile(const TempDir& dir)
    {
        return profile(dir, "mathlib", { "20", "60", "200" }, 500, libmHits);
    }

    // callgrind_annotate's function table, "FILE:FUNCTION [OBJECT]" rows (the object only where it
    // changes) added up per function over the files of its code (it lists inlined code apart).
    std::map<std::string, double> annotatedFunctions(const std::string& out)
    {
        std::map<std::string, double> functions;
        const std::regex row(R"(^ *([0-9,]+) \( *[0-9.]+%\)  ([^:]*):(.*?)( \[[^\]]*\])?$)");
        std::istringstream in(out);
        std::smatch m;
        for (std::string line; std::getline(in, line);) {
            if (!std::regex_search(line, m, row))
                continue;
            std::string count = m[1].str();
            std::erase(count, ',');
            functions[m[3].str()] += std::stod(count);
        }
        return functions;
    }

    // What the report says each function (module, or shared object function) took: its hits.
    std::map<std::string, double> modelFunctions(const pf::Report& r)
    {
        std::map<std::string, double> functions;
        for (const pf::ModuleRow& m : r.modules)
            functions[m.name] += m.hits;
        for (const pf::ObjectAnalysis& a : r.objectAnalyses) {
            for (const pf::ModuleRow& m : a.modules)
                functions[m.name] += m.hits;
        }
        for (const pf::ObjectRow& o : r.objects) {
            const bool analysed = std::any_of(r.objectAnalyses.begin(), r.objectAnalyses.end(),
                [&](const pf::ObjectAnalysis& a) { return a.path == o.path; });
            for (const pf::FunctionRow& f : o.functions)
                functions[f.name] += analysed ? 0 : f.hits;
        }
        return functions;
    }

    std::string busiestOf(const std::map<std::string, double>& functions)
    {
        return std::max_element(functions.begin(), functions.end(), [](auto& a, auto& b) {
            return a.second < b.second;
        })->first;
    }

    // The callgrind file's functions with their fl= file ("???" where none is given), names
    // uncompressed ("(3) name" defines 3, "(3)" uses it).
    std::map<std::string, std::string> functionFiles(const std::string& callgrind)
    {
        std::map<std::string, std::string> names[2], files;
        std::string file;
        std::istringstream in(callgrind);
        const std::regex kName(R"(^(fl|fn)=\((\d+)\)(?: (.*))?$)");
        std::smatch m;
        for (std::string line; std::getline(in, line);) {
            if (!std::regex_match(line, m, kName))
                continue;
            auto& known = names[m[1] == "fn"];
            if (m[3].matched)
                known[m[2]] = m[3];
            if (m[1] == "fl")
                file = known[m[2]];
            else
                files[known[m[2]]] = file;
        }
        return files;
    }

    // A function with program text starts in its entry file (fl=), not in "???" with all its lines
    // under fi=.
    void expectEntryFiles(const std::string& callgrind, const pf::Report& r)
    {
        const std::map<std::string, std::string> files = functionFiles(callgrind);
        std::vector<const pf::ModuleLines*> analysed;
        for (const pf::ModuleLines& m : r.lines)
            analysed.push_back(&m);
        for (const pf::ObjectAnalysis& a : r.objectAnalyses) {
            for (const pf::ModuleLines& m : a.lines)
                analysed.push_back(&m);
        }
        for (const pf::ModuleLines* m : analysed) {
            ASSERT_TRUE(files.contains(m->name)) << m->name;
            EXPECT_NE(files.at(m->name), "???") << m->name;
            EXPECT_TRUE(files.at(m->name).ends_with(m->entryFile.substr(m->entryFile.rfind('/') + 1)))
                << m->name << ": " << files.at(m->name) << ", entry " << m->entryFile;
        }
    }

    // ppeout --format callgrind `args`, read by callgrind_annotate: every function with its samples
    // as the report has them (all samples are whole here: one-byte bins), the busiest the same.
    void expectAnnotateAgrees(const TempDir& dir, std::vector<std::string> args, const pf::Report& report)
    {
        args.insert(args.begin(), { PPEOUT, "--format", "callgrind" });
        args.insert(args.end() - (args.back().ends_with(".lis") ? 1 : 0), dir.file("out.callgrind"));
        const RunResult cg = runProgram(args);
        ASSERT_EQ(cg.status, 0) << cg.err;
        const RunResult annotated
            = runProgram({ "callgrind_annotate", "--threshold=100", "--auto=yes", dir.file("out.callgrind") });
        ASSERT_EQ(annotated.status, 0) << annotated.err;
        EXPECT_EQ(annotated.err.find("WARNING"), std::string::npos) << annotated.err;
        expectEntryFiles(readFile(dir.file("out.callgrind")), report);
        const std::map<std::string, double> shown = annotatedFunctions(annotated.out);
        const std::map<std::string, double> expected = modelFunctions(report);
        ASSERT_FALSE(expected.empty());
        for (const auto& [name, hits] : expected) {
            ASSERT_EQ(hits, std::round(hits)) << name << ": the comparison wants whole samples";
            if (hits >= 0.5) {
                EXPECT_EQ(shown.contains(name) ? shown.at(name) : -1, hits) << name << "\n" << annotated.out;
            }
        }
        EXPECT_EQ(busiestOf(shown), busiestOf(expected)) << annotated.out;
    }

    TEST(FormatsModel, CallgrindAnnotateOnSharedObjectsInliningMapsAndAsm)
    {
        if (!haveTool("callgrind_annotate"))
            GTEST_SKIP() << "callgrind_annotate not installed (Debian: valgrind)";
        TempDir dir;
        const std::string m = mathlibProfile(dir);
        const pf::Report libm = model(request(m, pf::ModuleKind::Function));
        ASSERT_GE(libmHits(libm), 500) << "libm not analysed, or too few samples in it";
        {
            SCOPED_TRACE("mathlib");
            expectAnnotateAgrees(dir, { m }, libm);
        }
        {
            SCOPED_TRACE("mathlib --asm");
            expectAnnotateAgrees(dir, { "--asm", m }, model(request(m, pf::ModuleKind::Function, true)));
        }
        const std::string i = profile(dir, "inlining", { "300", "1000", "3000" }, 300, inRange);
        {
            SCOPED_TRACE("inlining");
            expectAnnotateAgrees(dir, { i }, model(request(i, pf::ModuleKind::Function)));
        }
        const std::string s = profile(dir, "simp", { "100000000000000003", "1000000000000000003" }, 300, inRange);
        pf::ReportRequest withMap = request(s, pf::ModuleKind::Auto, true);
        withMap.map = kExamples + "/simp.map";
        withMap.listings = { kExamples + "/simp.lis" };
        {
            SCOPED_TRACE("simp with its map and listing, --asm");
            expectAnnotateAgrees(dir, { "--asm", withMap.map, s, withMap.listings[0] }, model(withMap));
        }
    }

    // The sums docs/formats.md promises, on mathlib --asm: each kind's rows to their total, per
    // object and module, exactly.
    TEST(FormatsModel, CsvRowsSumToTheirTotalsPerObjectModuleAndLine)
    {
        TempDir dir;
        const std::string m = mathlibProfile(dir);
        const pf::Report report = model(request(m, pf::ModuleKind::Auto, true));
        ASSERT_FALSE(report.objectAnalyses.empty()) << "libm not analysed";
        const RunResult csv = runProgram({ PPEOUT, "--format", "csv", "--asm", m, "-" });
        ASSERT_EQ(csv.status, 0) << csv.err;
        const std::vector<CsvRow> rows = csvRows(csv.out);
        std::map<std::string, double> sums; // "kind object [module]" -> hits
        std::map<std::string, std::set<std::string>> modules; // object -> its module rows' names
        for (const CsvRow& r : rows) {
            const std::string& kind = r["kind"];
            if (kind == "module")
                modules[r["object"]].insert(r["module"]);
            if (kind == "count" || kind == "module" || kind == "function")
                sums[kind + " " + r["object"]] += r.hits();
            if (kind == "line")
                sums["line " + r["object"] + " " + r["module"]] += r.hits();
        }
        expectSum(sums["count "], double(report.profile.total), "count rows: the total");
        expectSum(sums["module "], inRange(report), "the executable's module rows: in range");
        for (const pf::ObjectRow& o : report.objects)
            expectSum(sums["function " + o.path], o.hits, "function rows of " + o.path);
        for (const pf::ObjectAnalysis& a : report.objectAnalyses)
            expectSum(sums["module " + a.path], a.hits, "module rows of " + a.path);
        size_t lined = 0;
        auto expectLines = [&](const std::string& object, const std::vector<pf::ModuleRow>& all) {
            for (const pf::ModuleRow& row : all) {
                const std::string key = "line " + object + " " + row.name;
                if (sums.contains(key))
                    expectSum(sums[key], row.hits, key), ++lined;
            }
        };
        expectLines("", report.modules);
        for (const pf::ObjectAnalysis& a : report.objectAnalyses)
            expectLines(a.path, a.modules);
        EXPECT_GE(lined, 2u) << "main and libm's busiest function have lines";
        // A line's module is named as its module row is: one filter finds both.
        for (const CsvRow& r : rows) {
            if (r["kind"] == "line" || r["kind"] == "instruction") {
                EXPECT_TRUE(modules[r["object"]].contains(r["module"])) << r["module"] << " in " << r["object"];
            }
        }
        EXPECT_GT(expectInstructionsSumToTheirLines(rows), 10u);
    }

    // Every number of the JSON report, printed exactly (repr) by python after the schema check.
    const std::string kJsonNumbers = schemaCheckedScript(R"(
r = lambda v: repr(float(v))
share = lambda s: " ".join(r(s[k]) for k in ("hits", "percent", "error"))
t = report["totals"]
print("totals", " ".join(str(t[k]) for k in ("system", "other", "overflow", "underflow", "last_address",
      "range_bytes")), " ".join(r(t[k]) for k in ("program_percent", "libraries_percent", "other_percent",
      "cpu_seconds", "cpu_user_percent", "cpu_system_percent", "unsampled_kernel_seconds", "expected_samples",
      "sampled_percent", "interval_ms")))
print("in_range", report["in_range"], "total", report["profile"]["counts"]["total"])
def modules(scope, o):
    for m in o["modules"]:
        print("module", scope, m["name"], " ".join(r(m[k]) for k in ("hits", "percent", "error", "accumulated",
              "percent_of_all", "split_hits")), m["address"], m["size"], m["ranges"])
    print("unattributed", scope, share(o["unattributed"]))
    for m in o["lines"]:
        print("lines", scope, m["name"], " ".join(r(m[k]) for k in ("hits", "without_line", "busiest", "split_hits")))
        for f in m["files"]:
            for l in f["rows"]:
                print(" ", l["line"], r(l["hits"]), r(l["accumulated"]), r(l["split_hits"]))
                for i in l.get("instructions", []):
                    print("   ", i["address"], r(i["hits"]))
modules("-", report)
for o in report["objects"]:
    print("object", o["path"], share(o), o["more_functions"], r(o["more_functions_hits"]),
          share(o["without_function"]), o["more_addresses"])
    for f in o["functions"]:
        print("  function", f["name"], share(f), f["address"], f["size"])
    for a in o["hottest"]:
        print("  address", a["address"], share(a))
for a in report["object_analyses"]:
    print("analysis", a["path"], r(a["hits"]), r(a["percent"]))
    modules(a["name"], a)
)");

    // Python's repr of a double: the shortest text that reads back, "5.0" for a whole number.
    std::string repr(double v)
    {
        return v == std::floor(v) && std::fabs(v) < 1e16 ? fmt::format("{:.1f}", v) : fmt::format("{}", v);
    }

    std::string share(const pf::Share& s)
    {
        return fmt::format("{} {} {}", repr(s.hits), repr(s.percent), repr(s.error));
    }

    void expectedModules(std::string& out, const std::string& scope, const std::vector<pf::ModuleRow>& rows,
        const pf::Share& none, const std::vector<pf::ModuleLines>& lines)
    {
        for (const pf::ModuleRow& m : rows)
            out += fmt::format("module {} {} {} {} {} {} {} {} {} {} {}\n", scope, m.name, repr(m.hits),
                repr(m.percent), repr(m.error), repr(m.accumulated), repr(m.percentOfAll), repr(m.splitHits), m.address,
                m.size, m.ranges);
        out += fmt::format("unattributed {} {}\n", scope, share(none));
        for (const pf::ModuleLines& m : lines) {
            out += fmt::format("lines {} {} {} {} {} {}\n", scope, m.name, repr(m.hits), repr(m.withoutLine),
                repr(m.busiest), repr(m.splitHits));
            for (const pf::FileLines& f : m.files) {
                for (const pf::LineRow& l : f.rows) {
                    out += fmt::format("  {} {} {} {}\n", l.line, repr(l.hits), repr(l.accumulated), repr(l.splitHits));
                    for (const pf::InstructionRow& i : l.instructions)
                        out += fmt::format("    {} {}\n", i.address, repr(i.hits));
                }
            }
        }
    }

    std::string expectedNumbers(const pf::Report& r)
    {
        const pf::Totals& t = r.totals;
        std::string out = fmt::format("totals {} {} {} {} {} {} {} {} {} {} {} {} {} {} {} {}\n", t.system, t.other,
            t.overflow, t.underflow, t.lastAddress, t.rangeBytes, repr(t.programPercent), repr(t.librariesPercent),
            repr(t.otherPercent), repr(t.cpuSeconds), repr(t.cpuUserPercent), repr(t.cpuSystemPercent),
            repr(t.unsampledKernelSeconds), repr(t.expectedSamples), repr(t.sampledPercent), repr(t.intervalMs));
        out += fmt::format("in_range {} total {}\n", r.profile.inRange(), r.profile.total);
        expectedModules(out, "-", r.modules, r.unattributed, r.lines);
        for (const pf::ObjectRow& o : r.objects) {
            out += fmt::format("object {} {} {} {} {} {} {} {}\n", o.path, repr(o.hits), repr(o.percent), repr(o.error),
                o.moreFunctions, repr(o.moreFunctionsHits), share(o.withoutFunction), o.moreAddresses);
            for (const pf::FunctionRow& f : o.functions)
                out += fmt::format("  function {} {} {} {} {} {}\n", f.name, repr(f.hits), repr(f.percent),
                    repr(f.error), f.address, f.size);
            for (const pf::AddressRow& a : o.hottest)
                out += fmt::format("  address {} {} {} {}\n", a.address, repr(a.hits), repr(a.percent), repr(a.error));
        }
        for (const pf::ObjectAnalysis& a : r.objectAnalyses) {
            out += fmt::format("analysis {} {} {}\n", a.path, repr(a.hits), repr(a.percent));
            expectedModules(out, a.name, a.modules, a.unattributed, a.lines);
        }
        return out;
    }

    TEST(FormatsModel, JsonHoldsEveryNumberOfTheModel)
    {
        if (!haveTool("python3"))
            GTEST_SKIP() << "python3 not installed";
        TempDir dir;
        const std::string m = mathlibProfile(dir);
        const RunResult json
            = runProgram({ PPEOUT, "--format", "json", "--by", "function", "--asm", m, dir.file("m.json") });
        ASSERT_EQ(json.status, 0) << json.err;
        const RunResult check = runProgram(
            { "python3", "-c", kJsonNumbers, PPE_SOURCE_DIR "/docs/report.schema.json", dir.file("m.json") });
        ASSERT_EQ(check.status, 0) << check.err;
        if (check.out.rfind("SKIP ", 0) == 0)
            GTEST_SKIP() << check.out.substr(5);
        const pf::Report report = model(request(m, pf::ModuleKind::Function, true));
        ASSERT_FALSE(report.objectAnalyses.empty()) << "libm not analysed";
        EXPECT_NE(check.out.find("\n    "), std::string::npos) << "instructions";
        EXPECT_EQ(check.out, expectedNumbers(report));
    }

} // namespace
} // namespace ppe::testing
