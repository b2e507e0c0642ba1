// ppeout on real profiles of real programs with their real linker maps.
#include "ppe/profile/profile_reader.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace ppe::testing {
namespace {

    // Time % and its binomial error recomputed from each row's Hits out of `n`, of samples that
    // stand for the profile's sampleWeight intervals each (itimer-prof's: the error is of the
    // samples taken), and Acc % never falling; returns the last Acc %.
    double checkRowStatistics(const std::vector<Row>& rows, double n, const std::string& ppe)
    {
        const Result<Profile> profile = readProfile(ppe);
        EXPECT_TRUE(profile) << profile.error().str();
        const double weight = profile ? profile->sampleWeight() : 1.0;
        double previous = 0;
        for (const Row& r : rows) {
            EXPECT_NEAR(r.percent, 100.0 * r.hits / n, 0.006) << r.name;
            const double p = r.hits / n;
            EXPECT_NEAR(r.error, 100.0 * std::sqrt(p * (1 - p) * weight / n), 0.006) << r.name;
            EXPECT_GE(r.accumulated, previous);
            previous = r.accumulated;
        }
        return previous;
    }

    const std::string kExamples = PPE_EXAMPLES_DIR;

    TEST(PpeoutTest, ModuleTableFromARealMapAndProfile)
    {
        TempDir dir;
        const RunResult run
            = runProgram({ PPE_LAUNCHER, "-o", dir.file("k.ppe"), "--mode", "cpu", kExamples + "/ktest" });
        ASSERT_EQ(run.status, 0) << run.err;
        const RunResult out = runProgram({ PPEOUT, kExamples + "/ktest.map", dir.file("k.ppe"), "-" });
        ASSERT_EQ(out.status, 0) << out.err;
        const std::vector<Row> rows = moduleRows(out.out);
        ASSERT_FALSE(rows.empty()) << out.out;
        EXPECT_NE(rows[0].name.find("ktest"), std::string::npos) << out.out;
        const double n = std::stod(inRangeCount(out.out));
        const double previous = checkRowStatistics(rows, n, dir.file("k.ppe"));
        // The program's calls into libgfortran pass through the PLT, which no module of the map
        // holds: a hit there now and then is the "(no module)" row, and the rows add up with it.
        std::smatch none;
        double unattributed = 0;
        if (std::regex_search(out.out, none, std::regex(R"(\n +- \(no module\) +([0-9.]+) \+- +[0-9.]+ +(\d+)\n)"))) {
            unattributed = std::stod(none[1]);
            EXPECT_NEAR(unattributed, 100.0 * std::stod(none[2]) / n, 0.006) << out.out;
            EXPECT_LT(unattributed, 1.0) << "the PLT and start-up code take a sliver of ktest's time\n" << out.out;
        }
        EXPECT_NEAR(previous + unattributed, 100.0, 0.011) << out.out;
    }

    TEST(PpeoutTest, WritesAFileAndNeverOverwrites)
    {
        TempDir dir;
        ASSERT_EQ(
            runProgram({ kExamples + "/simp", "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("s.ppe") } })
                .status,
            0);
        for (int i = 0; i < 2; ++i) {
            const RunResult out = runProgram({ PPEOUT, kExamples + "/simp.map", dir.file("s.ppe"), dir.file("s.ppl") });
            ASSERT_EQ(out.status, 0) << out.err;
        }
        EXPECT_NE(readFile(dir.file("s.ppl")).find("PPE - STATISTIC PRINTOUT"), std::string::npos);
        EXPECT_EQ(readFile(dir.file("s.ppl")), readFile(dir.file("s.ppl.~1~")));
    }

    TEST(PpeoutTest, WrongInputsGiveOneLineErrorsAndNoOutput)
    {
        TempDir dir;
        ASSERT_EQ(
            runProgram({ kExamples + "/simp", "1000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("s.ppe") } })
                .status,
            0);
        const std::string map = kExamples + "/simp.map";
        const std::string ppeText = readFile(dir.file("s.ppe"));
        const std::string mapText = readFile(map);
        auto save = [&dir](const std::string& name, const std::string& text) {
            std::ofstream(dir.file(name), std::ios::binary) << text;
            return dir.file(name);
        };
        const std::string emptyMap = save("empty.map", "");
        const std::string halfMap = save("half.map", mapText.substr(0, mapText.size() / 2));
        const std::string halfPpe = save("half.ppe", ppeText.substr(0, ppeText.size() / 2));
        struct Case {
            std::vector<std::string> args;
            std::string message;
        };
        const std::vector<Case> cases = {
            { { dir.file("s.ppe"), map, dir.file("o.ppl") }, "not a linker map" },
            { { map, map, dir.file("o.ppl") }, "the order is MAP_FILE PPE_FILE OUTPUT" },
            { { map, "/nonexistent.ppe", dir.file("o.ppl") }, "/nonexistent.ppe: cannot open for reading" },
            { { map, kExamples + "/simp", dir.file("o.ppl") }, "binary data" },
            { { map },
                "simp.map: not a ppe profile; expected MAP_FILE PPE_FILE OUTPUT [LISTING...] or PPE_FILE [OUTPUT]" },
            { { map, dir.file("s.ppe") }, "s.ppe: a ppe profile, not an output file name" },
            { { map, dir.file("o.ppl") }, "not a ppe profile" },
            { { map, dir.file("s.ppe"), dir.file("s.ppe") }, "the output would replace an input" },
            { { emptyMap, dir.file("s.ppe"), dir.file("o.ppl") }, "empty file" },
            { { halfMap, dir.file("s.ppe"), dir.file("o.ppl") }, "truncated linker map" },
            { { kExamples + "/simp", dir.file("s.ppe"), dir.file("o.ppl") }, "binary data, not a linker map" },
            { { map, halfPpe, dir.file("o.ppl") }, "truncated" },
        };
        for (const Case& c : cases) {
            std::vector<std::string> argv = { PPEOUT };
            argv.insert(argv.end(), c.args.begin(), c.args.end());
            const RunResult r = runProgram(argv);
            EXPECT_EQ(r.status, 1) << c.message;
            EXPECT_NE(r.err.find("ppeout: error: "), std::string::npos) << r.err;
            EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_FALSE(fileExists(dir.file("o.ppl")));
        }
    }

    // Every linker's map, -ffunction-sections: one module per function, in decreasing time.
    class LinkerTest : public ::testing::TestWithParam<const char*> { };

    TEST_P(LinkerTest, FunctionModulesInDecreasingTime)
    {
        TempDir dir;
        const std::string program = kExamples + "/ktest_" + GetParam();
        std::string report;
        double n = 0;
        double taken = 0; // samples' worth: itimer-prof's stand for several intervals each
        for (int scale = 1; scale <= 16 && taken < 1500; scale *= 2) { // wait for samples, not for time
            const RunResult run = runProgram(
                { PPE_LAUNCHER, "-o", dir.file("k.ppe"), "--mode", "cpu", program, std::to_string(scale) });
            ASSERT_EQ(run.status, 0) << run.err;
            const RunResult out = runProgram({ PPEOUT, program + ".map", dir.file("k.ppe"), "-" });
            ASSERT_EQ(out.status, 0) << out.err;
            report = out.out;
            n = std::stod(inRangeCount(report));
            const Result<Profile> profile = readProfile(dir.file("k.ppe"));
            ASSERT_TRUE(profile) << profile.error().str();
            taken = n / profile->sampleWeight();
        }
        const std::vector<Row> rows = moduleRows(report);
        ASSERT_GE(rows.size(), 3u) << report;
        // gram : mxm : bsort do about 4 : 2 : 1 of the work.
        EXPECT_EQ(rows[0].name, "gram_") << report;
        EXPECT_EQ(rows[1].name, "mxm_") << report;
        EXPECT_EQ(rows[2].name, "bsort_") << report;
        const double previous = checkRowStatistics(rows, n, dir.file("k.ppe"));
        EXPECT_GE(previous, 99.9) << report;
    }

    // A profile of simp, its text with the image renamed to a file that does not exist (so that only
    // the range and the hits can tell a map's fit).
    struct SimpProfile {
        std::string withImage;
        std::string withoutImage;
    };

    SimpProfile simpProfile(TempDir& dir)
    {
        const RunResult run = runProgram(
            { kExamples + "/simp", "100000000000000003" }, { { "PPE_ON", "1" }, { "PPE_OUT", dir.file("s.ppe") } });
        EXPECT_EQ(run.status, 0) << run.err;
        const std::string text = readFile(dir.file("s.ppe"));
        std::ofstream(dir.file("gone.ppe"), std::ios::binary)
            << std::regex_replace(text, std::regex("\nimage \"[^\n]*"), "\nimage \"/nonexistent/simp\"");
        return { dir.file("s.ppe"), dir.file("gone.ppe") };
    }

    // Issue 18: a map of another program, or of another build of the same program, is refused in one
    // line naming both files, with no output; --ignore-map-mismatch formats it with a warning.
    TEST(PpeoutTest, MapOfAnotherProgramOrBuildIsRefused)
    {
        TempDir dir;
        const SimpProfile profile = simpProfile(dir);
        struct Case {
            std::string map, profile, evidence;
        };
        const std::vector<Case> cases = {
            { kExamples + "/ktest.map", profile.withImage, "code sections do not start and end where functions of" },
            { std::string(PPE_SIMP_O1) + ".map", profile.withImage,
                "code sections do not start and end where functions of" },
            { kExamples + "/ktest.map", profile.withoutImage, "" },
            { kExamples + "/mathlib.map", profile.withoutImage, "" },
            // Another build of the same program with the executable gone: the code sections the
            // collector read from its section headers (code-section) tell them apart.
            { std::string(PPE_SIMP_O1) + ".map", profile.withoutImage, "its .text holds code at" },
        };
        for (const Case& c : cases) {
            const RunResult r = runProgram({ PPEOUT, c.map, c.profile, dir.file("o.ppl") });
            EXPECT_EQ(r.status, 1) << c.map << " " << c.profile << "\n" << r.err;
            EXPECT_EQ(r.err.find("ppeout: error: " + c.map + ": not the map of the program " + c.profile), 0u) << r.err;
            EXPECT_NE(r.err.find(c.evidence), std::string::npos) << r.err;
            EXPECT_NE(r.err.find("--ignore-map-mismatch"), std::string::npos) << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_FALSE(fileExists(dir.file("o.ppl")));
        }
        const RunResult forced
            = runProgram({ PPEOUT, "--ignore-map-mismatch", kExamples + "/ktest.map", profile.withImage, "-" });
        EXPECT_EQ(forced.status, 0) << forced.err;
        EXPECT_NE(forced.err.find("ppeout: warning: " + kExamples + "/ktest.map: not the map of the program"),
            std::string::npos)
            << forced.err;
        EXPECT_NE(forced.out.find("PPE - STATISTIC PRINTOUT"), std::string::npos);
    }

    // The right map passes the same checks, with and without the image.
    TEST(PpeoutTest, MapOfTheProfilesBuildIsAccepted)
    {
        TempDir dir;
        const SimpProfile profile = simpProfile(dir);
        for (const std::string& ppe : { profile.withImage, profile.withoutImage }) {
            const RunResult r = runProgram({ PPEOUT, kExamples + "/simp.map", ppe, "-" });
            EXPECT_EQ(r.status, 0) << r.err;
            EXPECT_EQ(r.err.find("not the map"), std::string::npos) << r.err;
        }
    }

    // Issue 18: --by function with a map was silently ignored; now the map's units are split into
    // the image's functions, and the unit's listing gives each its lines. Without the image it is
    // refused in words.
    TEST(PpeoutTest, ByFunctionWithAMapGivesFunctionsInsideEachUnit)
    {
        TempDir dir;
        const SimpProfile profile = simpProfile(dir);
        const RunResult r = runProgram(
            { PPEOUT, "--by", "function", kExamples + "/simp.map", profile.withImage, "-", kExamples + "/simp.lis" });
        ASSERT_EQ(r.status, 0) << r.err;
        const std::vector<Row> rows = moduleRows(r.out);
        ASSERT_FALSE(rows.empty()) << r.out;
        EXPECT_EQ(rows[0].name, "sd (simp.c.o)") << r.out;
        EXPECT_GT(rows[0].percent, 90.0) << r.out;
        const std::vector<ModuleText> text = programText(r.out);
        ASSERT_FALSE(text.empty()) << r.out;
        EXPECT_EQ(text[0].name, "sd (simp.c.o)");
        EXPECT_EQ(text[0].origin, "listing " + kExamples + "/simp.lis");
        const int opening = lineOf(std::string(PPE_EXAMPLES_SOURCE) + "/simp.c", "ordinal sd(ordinal num)");
        ASSERT_FALSE(text[0].rows.empty());
        EXPECT_LE(text[0].rows.front().line, opening) << "its own lines, from its heading";
        const int main = lineOf(std::string(PPE_EXAMPLES_SOURCE) + "/simp.c", "int main(");
        EXPECT_LT(text[0].rows.back().line, main) << "its own lines, not the whole file";

        const RunResult gone = runProgram(
            { PPEOUT, "--by", "function", kExamples + "/simp.map", profile.withoutImage, dir.file("o.ppl") });
        EXPECT_EQ(gone.status, 1);
        EXPECT_EQ(gone.err.find("ppeout: error: --by function with a map takes the functions from the symbols of "
                                "/nonexistent/simp"),
            0u)
            << gone.err;
        EXPECT_EQ(std::count(gone.err.begin(), gone.err.end(), '\n'), 1) << gone.err;
        EXPECT_FALSE(fileExists(dir.file("o.ppl")));
    }

    // Issues 18 and 25, the smaller ones: PPE_FILE alone goes to standard output; `ppeout s.c -`
    // names s.c even where a file named "-" is a profile; a map that cannot be opened says why.
    TEST(PpeoutTest, SmallerArgumentMistakesSayWhatIsWrong)
    {
        TempDir dir;
        const SimpProfile profile = simpProfile(dir);
        const RunResult alone = runProgram({ PPEOUT, profile.withImage });
        EXPECT_EQ(alone.status, 0) << alone.err;
        EXPECT_NE(alone.out.find("PPE - STATISTIC PRINTOUT"), std::string::npos) << alone.out;

        std::filesystem::copy_file(profile.withImage, dir.file("-")); // left by `ppe -o -`
        std::ofstream(dir.file("s.c")) << "int main(void) { return 0; }\n";
        const RunResult source = runProgram({ PPEOUT, "s.c", "-" }, {}, dir.path());
        EXPECT_EQ(source.status, 1);
        EXPECT_EQ(source.err.find("ppeout: error: s.c:"), 0u) << source.err;
        EXPECT_NE(source.err.find("not a ppe profile"), std::string::npos) << source.err;

        const RunResult map = runProgram({ PPEOUT, dir.file("none.map"), profile.withImage, "-" });
        EXPECT_EQ(map.status, 1);
        EXPECT_NE(map.err.find("none.map: cannot open linker map: No such file or directory"), std::string::npos)
            << map.err;
    }

    INSTANTIATE_TEST_SUITE_P(Linkers, LinkerTest, ::testing::Values("bfd", "gold", "lld", "mold"));

    // Issue 6: a profile recovered from a killed run says so, and up to when.
    TEST(PpeoutTest, ARecoveredProfileSaysSo)
    {
        TempDir dir;
        const RunResult killed = runProgram({ PPE_LAUNCHER, "-o", dir.file("k.ppe"), PPE_ENDINGS, "kill" });
        ASSERT_FALSE(killed.exited);
        std::string live;
        for (const auto& e : std::filesystem::directory_iterator(dir.path()))
            live = e.path().extension() == ".live" ? e.path().string() : live;
        ASSERT_FALSE(live.empty());
        const RunResult out = runProgram({ PPEOUT, std::string(PPE_ENDINGS) + ".map", live, "-" });
        if (out.status != 0 && out.err.find("cannot open") != std::string::npos)
            GTEST_SKIP() << "no linker map for endings";
        ASSERT_EQ(out.status, 0) << out.err;
        EXPECT_NE(out.out.find(" Profile status: recovered (data up to "), std::string::npos) << out.out;
    }

} // namespace
} // namespace ppe::testing
