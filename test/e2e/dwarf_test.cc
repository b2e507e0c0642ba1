// ppeout without a map: modules, functions and lines from the executable's DWARF and symbols;
// split debug info; build-id checks; functions inside shared libraries.
#include "elf_symbols.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <regex>

namespace ppe::testing {
namespace {

    const std::string kExamples = PPE_EXAMPLES_DIR;
    const std::string kSources = PPE_EXAMPLES_SOURCE;

    // Runs `argv` under the launcher in CPU mode into DIR/NAME, growing the last argument until the
    // profile holds `samples` in-range samples (waiting for samples, not for time).
    std::string profile(const TempDir& dir, const std::string& name, std::vector<std::string> argv, int samples,
        std::vector<std::string> scales)
    {
        for (const std::string& scale : scales) {
            std::vector<std::string> run = { PPE_LAUNCHER, "-o", dir.file(name), "--mode", "cpu" };
            run.insert(run.end(), argv.begin(), argv.end());
            run.push_back(scale);
            const RunResult r = runProgram(run);
            EXPECT_EQ(r.status, 0) << r.err;
            const RunResult head = runProgram({ PPEOUT, dir.file(name), "-" });
            if (head.status == 0 && std::atoi(inRangeCount(head.out).c_str()) >= samples)
                break;
        }
        return dir.file(name);
    }

    TEST(DwarfReport, SimpFromTheExecutableAloneFindsTheListingsHotLine)
    {
        TempDir dir;
        const std::string ppe = profile(dir, "s.ppe", { kExamples + "/simp" }, 400,
            { "10000000000000061", "100000000000000003", "1000000000000000003" });
        const RunResult dwarf = runProgram({ PPEOUT, ppe, "-" });
        ASSERT_EQ(dwarf.status, 0) << dwarf.err;
        EXPECT_EQ(withoutBenignWarnings(dwarf.err), "");
        const std::vector<Row> rows = moduleRows(dwarf.out);
        ASSERT_FALSE(rows.empty()) << dwarf.out;
        EXPECT_EQ(rows[0].name, "simp.c") << dwarf.out;
        const std::vector<ModuleText> text = programText(dwarf.out);
        ASSERT_FALSE(text.empty()) << dwarf.out;
        EXPECT_EQ(text[0].name, "simp.c");
        EXPECT_EQ(text[0].origin, "DWARF line table");
        const TextRow& top = busiest(text[0].rows);
        EXPECT_EQ(trim(top.text), "if ((num % cnt) == 0) return cnt;") << dwarf.out;

        // The listing of the same build names the same line.
        const RunResult listing = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-", kExamples + "/simp.lis" });
        ASSERT_EQ(listing.status, 0) << listing.err;
        const std::vector<ModuleText> listed = programText(listing.out);
        ASSERT_FALSE(listed.empty());
        EXPECT_EQ(busiest(listed[0].rows).line, top.line);
    }

    // With a map, the map's units are the modules and a listing gives the lines; DWARF gives lines
    // only to modules without a listing, and only from an executable of the profile's build.
    TEST(DwarfReport, WithAMapDwarfOnlyFillsGaps)
    {
        TempDir dir;
        const std::string ppe
            = profile(dir, "s.ppe", { kExamples + "/simp" }, 200, { "10000000000000061", "100000000000000003" });
        const RunResult listed = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-", kExamples + "/simp.lis" });
        const RunResult filled = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-" });
        const RunResult other
            = runProgram({ PPEOUT, "--exe", kExamples + "/simp_plain", kExamples + "/simp.map", ppe, "-" });
        ASSERT_EQ(listed.status, 0) << listed.err;
        ASSERT_EQ(filled.status, 0) << filled.err;
        const std::vector<ModuleText> a = programText(listed.out), b = programText(filled.out);
        ASSERT_EQ(a.size(), 1u);
        ASSERT_EQ(b.size(), 1u);
        EXPECT_EQ(a[0].name, "simp.c.o") << "the map names the modules";
        EXPECT_EQ(b[0].name, "simp.c.o");
        EXPECT_EQ(a[0].origin, "listing " + kExamples + "/simp.lis");
        EXPECT_EQ(b[0].origin, "DWARF line table");
        EXPECT_EQ(busiest(a[0].rows).line, busiest(b[0].rows).line);
        // An executable of another build named with --exe: refused, as without a map.
        EXPECT_EQ(other.status, 1) << other.out;
        EXPECT_NE(other.err.find("another build of the program"), std::string::npos) << other.err;
    }

    TEST(DwarfReport, ModuleAndFunctionTablesMatchTheSymbols)
    {
        TempDir dir;
        const std::string program = kExamples + "/ktest";
        const std::string ppe = profile(dir, "k.ppe", { program }, 1500, { "1", "2", "4", "8" });
        const std::vector<FunctionSymbol> symbols = functionSymbols(program);

        const RunResult byFunction = runProgram({ PPEOUT, "--by", "function", ppe, "-" });
        ASSERT_EQ(byFunction.status, 0) << byFunction.err;
        const std::vector<Row> functions = moduleRows(byFunction.out);
        ASSERT_GE(functions.size(), 3u) << byFunction.out;
        EXPECT_EQ(functions[0].name, "gram_");
        EXPECT_EQ(functions[1].name, "mxm_");
        EXPECT_EQ(functions[2].name, "bsort_");
        for (const Row& r : functions) {
            if (r.name[0] == '[')
                continue; // a PLT section as a function of its own ("[.plt]"): no symbol
            // The main program is shown by its name, as gdb shows it; its symbol is MAIN__.
            const std::string symbol = r.name == "ktest" ? "MAIN__" : r.name;
            auto s = std::find_if(
                symbols.begin(), symbols.end(), [&](const FunctionSymbol& f) { return f.name == symbol; });
            ASSERT_NE(s, symbols.end()) << r.name;
            EXPECT_EQ(r.address, s->address) << r.name;
            EXPECT_EQ(r.size, s->size) << r.name;
        }

        // By unit: ktest.f90 holds gram_, mxm_ and bsort_, and starts at its lowest function.
        const RunResult byUnit = runProgram({ PPEOUT, ppe, "-" });
        ASSERT_EQ(byUnit.status, 0) << byUnit.err;
        const std::vector<Row> units = moduleRows(byUnit.out);
        ASSERT_FALSE(units.empty());
        EXPECT_EQ(units[0].name, "ktest.f90") << byUnit.out;
        for (const char* f : { "gram_", "mxm_", "bsort_" }) {
            const FunctionSymbol s = findFunction(symbols, f);
            EXPECT_LE(units[0].address, s.address) << f;
        }
    }

    TEST(DwarfReport, InlinedTemplateLinesUnderTheirOwnFileWithTheirCaller)
    {
        TempDir dir;
        const std::string ppe = profile(dir, "i.ppe", { kExamples + "/inlining" }, 600, { "300", "1000", "3000" });
        const RunResult out = runProgram({ PPEOUT, ppe, "-" });
        ASSERT_EQ(out.status, 0) << out.err;
        const std::string header = kSources + "/inlining/kernels.h";
        const std::vector<TextRow> rows = otherFileRows(out.out, header);
        ASSERT_FALSE(rows.empty()) << out.out;
        const TextRow& top = busiest(rows);
        const int dot = lineOf(header, "inline T dot(");
        EXPECT_GT(top.line, dot) << out.out;
        EXPECT_LT(top.line, lineOf(header, "return sum;", dot)) << out.out;
        EXPECT_TRUE(std::regex_search(out.out,
            std::regex("File " + header + R"(  \(its lines with hits in this module, inlined into [^\n]*run\()")))
            << out.out;
    }

    TEST(DwarfReport, StrippedExecutableWithItsDebugFileUnderABuildIdPath)
    {
        TempDir dir;
        const std::string stripped = dir.file("simp");
        const std::string id = buildIdOf(kExamples + "/simp");
        ASSERT_GE(id.size(), 4u);
        const std::string debugFile = dir.file("debug/.build-id/" + id.substr(0, 2) + "/" + id.substr(2) + ".debug");
        std::filesystem::create_directories(std::filesystem::path(debugFile).parent_path());
        ASSERT_EQ(runProgram({ "objcopy", "--only-keep-debug", kExamples + "/simp", debugFile }).status, 0);
        ASSERT_EQ(runProgram({ "objcopy", "--strip-all", kExamples + "/simp", stripped }).status, 0);
        ASSERT_EQ(buildIdOf(stripped), id);
        const std::string ppe = [&] {
            for (const char* prime : { "10000000000000061", "100000000000000003" }) {
                const RunResult r = runProgram(
                    { stripped, prime }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("s.ppe") }, { "PPE_MODE", "1" } });
                EXPECT_EQ(r.status, 0) << r.err;
                if (std::atoi(inRangeCount(
                        runProgram({ PPEOUT, "--debug-dir", dir.file("debug"), dir.file("s.ppe"), "-" }).out)
                                  .c_str())
                    >= 200)
                    break;
            }
            return dir.file("s.ppe");
        }();
        // Without the debug file: what the stripped file's symbol tables have, and a warning saying why.
        const RunResult without = runProgram({ PPEOUT, ppe, "-" });
        EXPECT_EQ(without.status, 0) << without.err;
        EXPECT_NE(without.err.find(stripped + ": no DWARF (built without -g, or stripped: --debug-dir DIR"),
            std::string::npos)
            << without.err;
        // No program text of the executable (a shared library with debug information may have its own).
        for (const ModuleText& m : programText(without.out))
            EXPECT_NE(m.name.find(" in "), std::string::npos) << without.out;
        const RunResult with = runProgram({ PPEOUT, "--debug-dir", dir.file("debug"), ppe, "-" });
        ASSERT_EQ(with.status, 0) << with.err;
        const std::vector<Row> rows = moduleRows(with.out);
        ASSERT_FALSE(rows.empty()) << with.out;
        EXPECT_EQ(rows[0].name, "simp.c");
        const std::vector<ModuleText> text = programText(with.out);
        ASSERT_FALSE(text.empty()) << with.out;
        EXPECT_EQ(trim(busiest(text[0].rows).text), "if ((num % cnt) == 0) return cnt;") << with.out;
    }

    // Debug sections compressed as Debian ships them (SHF_COMPRESSED, or GNU's .zdebug_*): the same
    // hot line as the uncompressed build, and no warning.
    TEST(DwarfReport, CompressedDebugSectionsGiveTheSameHotLine)
    {
        for (const std::string style : { "zlib", "zlib-gnu" }) {
            TempDir dir;
            const std::string simp = dir.file("simp");
            ASSERT_EQ(
                runProgram({ "objcopy", "--compress-debug-sections=" + style, kExamples + "/simp", simp }).status, 0);
            const std::string ppe = profile(dir, "s.ppe", { simp }, 200, { "10000000000000061", "100000000000000003" });
            const RunResult out = runProgram({ PPEOUT, ppe, "-" });
            ASSERT_EQ(out.status, 0) << out.err;
            EXPECT_EQ(withoutBenignWarnings(out.err), "") << style;
            const std::vector<ModuleText> text = programText(out.out);
            ASSERT_FALSE(text.empty()) << style << "\n" << out.out;
            EXPECT_EQ(text[0].name, "simp.c");
            EXPECT_EQ(trim(busiest(text[0].rows).text), "if ((num % cnt) == 0) return cnt;") << out.out;
        }
    }

    TEST(DwarfReport, AProfileOfAnotherBuildIsRefusedWithBothIds)
    {
        TempDir dir;
        const RunResult run
            = runProgram({ kExamples + "/simp", "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("s.ppe") } });
        ASSERT_EQ(run.status, 0) << run.err;
        const std::string ours = buildIdOf(kExamples + "/simp");
        const std::string other = buildIdOf(kExamples + "/simp_plain");
        ASSERT_NE(ours, other);
        const RunResult out
            = runProgram({ PPEOUT, "--exe", kExamples + "/simp_plain", dir.file("s.ppe"), dir.file("o.ppl") });
        EXPECT_EQ(out.status, 1);
        EXPECT_NE(out.err.find("ppeout: error: "), std::string::npos) << out.err;
        EXPECT_NE(out.err.find(ours), std::string::npos) << out.err;
        EXPECT_NE(out.err.find(other), std::string::npos) << out.err;
        EXPECT_EQ(std::count(out.err.begin(), out.err.end(), '\n'), 1) << out.err;
        EXPECT_FALSE(fileExists(dir.file("o.ppl")));
        // Overridden on request, with a warning.
        const RunResult forced
            = runProgram({ PPEOUT, "--ignore-build-id", "--exe", kExamples + "/simp_plain", dir.file("s.ppe"), "-" });
        EXPECT_EQ(forced.status, 0) << forced.err;
        EXPECT_NE(forced.err.find("formatted anyway"), std::string::npos) << forced.err;
    }

    // The shared-object table: "   1 - libm.so.6   61.20 +-  0.30   1234  /usr/lib/..." and its
    // function rows below it.
    struct ObjectRows {
        double percent = 0;
        std::vector<std::pair<std::string, double>> functions; // name, percent
    };

    ObjectRows objectRows(const std::string& report, const std::string& baseName)
    {
        static const std::regex kObject(R"(^\s*\d+ - (\S+)\s+([0-9.]+) \+-\s+[0-9.]+\s+\d+\s+/.*$)");
        static const std::regex kFunction(R"(^ {9}(.+?)\s+([0-9.]+) \+-\s+[0-9.]+\s+\d+$)");
        ObjectRows rows;
        std::istringstream in(report.substr(std::min(report.size(), report.find("PPE - SHARED OBJECTS"))));
        std::string line;
        std::smatch m;
        bool inside = false;
        while (std::getline(in, line) && line.rfind("Program text.", 0) != 0) {
            if (std::regex_match(line, m, kObject)) {
                inside = m[1] == baseName;
                if (inside)
                    rows.percent = std::stod(m[2]);
            } else if (inside && std::regex_match(line, m, kFunction) && m[1].str().front() != '(') {
                rows.functions.emplace_back(m[1], std::stod(m[2])); // not "(no function)"
            }
        }
        return rows;
    }

    TEST(DwarfReport, TimeInLibmShowsLibmAndItsFunctions)
    {
        TempDir dir;
        const std::string ppe = profile(dir, "m.ppe", { kExamples + "/mathlib" }, 0, { "20" });
        const RunResult out = runProgram({ PPEOUT, ppe, "-" });
        ASSERT_EQ(out.status, 0) << out.err;
        const ObjectRows libm = objectRows(out.out, "libm.so.6");
        EXPECT_GT(libm.percent, 30.0) << out.out;
        ASSERT_FALSE(libm.functions.empty()) << out.out;
        double sum = 0;
        for (const auto& [name, percent] : libm.functions)
            sum += percent;
        EXPECT_LE(sum, libm.percent + 0.01);
        EXPECT_GT(libm.functions.front().second, 5.0) << out.out;
        // The names are libm's own: sin, exp, log and pow and the variants they dispatch to.
        EXPECT_TRUE(std::regex_search(libm.functions.front().first, std::regex("sin|exp|log|pow"))) << out.out;
    }

    TEST(DwarfReport, AnUnloadedLibraryIsReportedWithItsFunction)
    {
        TempDir dir;
        const RunResult run = runProgram({ PPE_LAUNCHER, "-o", dir.file("d.ppe"), "--mode", "cpu", PPE_DLOPEN_CLOSE,
            PPE_DL_FIRST, PPE_DL_SECOND, "0.3" });
        ASSERT_EQ(run.status, 0) << run.err;
        const RunResult out = runProgram({ PPEOUT, dir.file("d.ppe"), "-" });
        ASSERT_EQ(out.status, 0) << out.err;
        for (const auto& [library, function] :
            { std::pair { "libdl_first.so", "first_work" }, { "libdl_second.so", "second_work" } }) {
            const ObjectRows rows = objectRows(out.out, library);
            ASSERT_FALSE(rows.functions.empty()) << library << "\n" << out.out;
            EXPECT_EQ(rows.functions.front().first, function) << out.out;
        }
    }

} // namespace
} // namespace ppe::testing
