// Issue 39: call paths of a program of known call structure (call_paths.c: -O2, no frame pointer;
// a leaf called from two callers 70:30, recursion eight calls deep, a call back through a shared
// library), recorded by the collector (`ppe -g`: perf-ring samples with a copy of the stack, unwound
// with the objects' CFI) and formatted by ppeout: the shares are the truth within their errors, and
// agree with `perf record --call-graph dwarf` of the same program.
#include "json_schema_check.h"
#include "report_text.h"
#include "run_program.h"
#include "temp_dir.h"

#include "ppe/profile/live_recovery.h"
#include "ppe/profile/profile_reader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace ppe::testing {
namespace {

    struct CallRow {
        double inclusive = 0, inclusiveError = 0, self = 0, selfError = 0;
        std::map<std::string, double> callers, callees; // % of its inclusive time
    };

    // ppeout's call paths section, by function name.
    std::map<std::string, CallRow> callRows(const std::string& text)
    {
        std::map<std::string, CallRow> rows;
        const size_t section = text.find("PPE - CALL PATHS");
        if (section == std::string::npos)
            return rows;
        std::istringstream in(text.substr(section));
        const std::regex row(R"(^\s*\d+\s+([\d.]+) \+-\s+([\d.]+)\s+([\d.]+) \+-\s+([\d.]+)\s+(.+)$)");
        const std::regex edge(R"(^\s+([<>])\s+([\d.]+)\s+(.+)$)");
        CallRow* current = nullptr;
        std::string line;
        std::getline(in, line);
        while (std::getline(in, line) && line.find("PPE - ") == std::string::npos && line.find("Program text") != 0) {
            std::smatch m;
            if (std::regex_match(line, m, row)) {
                current = &rows[m[5]];
                *current = CallRow { std::stod(m[1]), std::stod(m[2]), std::stod(m[3]), std::stod(m[4]), {}, {} };
            } else if (current && std::regex_match(line, m, edge)) {
                (m[1] == "<" ? current->callers : current->callees)[m[3]] = std::stod(m[2]);
            }
        }
        return rows;
    }

    // The percentages of the line on paths that stopped short of the program's start (0: none did).
    double shortPathsPercent(const std::string& text)
    {
        const size_t at = text.find("Paths that stopped short of the program's start:");
        if (at == std::string::npos)
            return 0;
        const std::string line = text.substr(at, text.find('\n', at) - at);
        const std::regex percent(R"(([\d.]+)%)");
        double sum = 0;
        for (auto m = std::sregex_iterator(line.begin(), line.end(), percent); m != std::sregex_iterator(); ++m)
            sum += std::stod((*m)[1]);
        return sum;
    }

    class CallPathsTest : public ::testing::Test {
    protected:
        TempDir m_dir;

        void SetUp() override
        {
            if (!perfEventsAvailable() || !perfRingsAvailable())
                GTEST_SKIP() << "perf events bound to a CPU, or their ring buffers, are refused here: no perf-ring, "
                                "no call paths";
        }

        // The program under `ppe -g`, then ppeout's text report of its profile.
        std::string profiled(const std::string& rounds)
        {
            const std::string out = m_dir.file("calls.ppe");
            const RunResult run = runProgram({ PPE_LAUNCHER, "-g", "-o", out, PPE_CALL_PATHS, rounds });
            EXPECT_TRUE(run.exited && run.status == 0) << run.err;
            const RunResult report = runProgram({ PPEOUT, out });
            EXPECT_TRUE(report.exited && report.status == 0) << report.err;
            return report.out;
        }
    };

    // Within three errors of `truth` (percent), and one point for what the functions' calls and
    // loops cost besides their counted work.
    void expectShare(double percent, double error, double truth, const std::string& what)
    {
        EXPECT_NEAR(percent, truth, 3 * error + 1.0) << what;
    }

    TEST_F(CallPathsTest, SharesOfCallersRecursionAndALibraryAreTheTruth)
    {
        const std::string text = profiled("1500");
        const std::map<std::string, CallRow> rows = callRows(text);
        ASSERT_TRUE(rows.count("leaf") && rows.count("caller_a") && rows.count("recurse") && rows.count("callback"))
            << text;
        const CallRow& leaf = rows.at("leaf");
        // The leaf's callers: 70:30, the error of a share of the leaf's own samples.
        const double leafSamplesShare = leaf.inclusive / 100;
        const std::regex total(R"((\d+) samples with a call path)");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, total)) << text;
        const double samples = std::stod(m[1]);
        ASSERT_GT(samples, 1000) << text;
        const double leafSamples = samples * leafSamplesShare;
        const double p = leaf.callers.count("caller_a") ? leaf.callers.at("caller_a") / 100 : 0;
        expectShare(100 * p, 100 * std::sqrt(p * (1 - p) / leafSamples), 70, "leaf's share under caller_a\n" + text);
        EXPECT_NEAR(leaf.callers.count("caller_b") ? leaf.callers.at("caller_b") : 0, 100 * (1 - p), 0.02);
        // Inclusive time of all samples: 10, 7, 3, 2, 2 of 14.
        const std::map<std::string, double> truth { { "leaf", 10 }, { "caller_a", 7 }, { "caller_b", 3 },
            { "recurse", 2 }, { "callback", 2 } };
        for (const auto& [name, units] : truth) {
            const CallRow& r = rows.at(name);
            expectShare(r.inclusive, r.inclusiveError, 100 * units / 14, name + "'s inclusive time\n" + text);
        }
        // Recursion counted once: recurse's time came through main alone, and went to bottom.
        EXPECT_EQ(rows.at("recurse").callers.size(), 1u) << text;
        EXPECT_GT(rows.at("recurse").callers.count("main"), 0u) << text;
        EXPECT_GT(rows.at("recurse").callees.count("bottom"), 0u) << text;
        // Through the shared library: callback's time came through call_paths_apply in it.
        const CallRow& callback = rows.at("callback");
        EXPECT_GT(callback.callers.count("call_paths_apply (libcall_paths_lib.so)"), 0u) << text;
        // Nearly every path reached the program's start: a sample in the dynamic loader's start-up
        // may end at its entry, which has no CFI.
        EXPECT_LT(shortPathsPercent(text), 1.0) << text;
    }

    // The number before "samples with a call path", and before "calling contexts".
    std::pair<double, double> pathTotals(const std::string& text)
    {
        std::smatch m;
        const std::regex totals(R"((\d+) samples with a call path, in (\d+) calling contexts)");
        if (!std::regex_search(text, m, totals))
            return { 0, 0 };
        return { std::stod(m[1]), std::stod(m[2]) };
    }

    // The report's call paths section, up to the next section or the program text.
    std::string callPathsSection(const std::string& text)
    {
        const size_t at = text.find("PPE - CALL PATHS");
        if (at == std::string::npos)
            return "";
        const size_t end = std::min(text.find("PPE - ", at + 1), text.find("Program text", at));
        return text.substr(at, end == std::string::npos ? std::string::npos : end - at);
    }

    // The report's leaf `leaf` came through `caller` 70 % of the time, within three errors of its
    // own samples.
    void expectSeventyPercentThrough(const std::string& text, const std::string& leaf, const std::string& caller)
    {
        const std::map<std::string, CallRow> rows = callRows(text);
        ASSERT_TRUE(rows.count(leaf)) << text;
        const double leafSamples = pathTotals(text).first * rows.at(leaf).inclusive / 100;
        const double p = rows.at(leaf).callers.count(caller) ? rows.at(leaf).callers.at(caller) / 100 : 0;
        expectShare(100 * p, 100 * std::sqrt(p * (1 - p) / leafSamples), 70, leaf + " through " + caller + "\n" + text);
    }

    // gfortran -O2 (no frame pointer), one procedure per file: the leaf's callers 70:30, named by
    // the units ppeout reads for them (the callers took no sample of their own).
    TEST_F(CallPathsTest, FortranCallersWithoutAFramePointer)
    {
        const std::string out = m_dir.file("f.ppe");
        const RunResult run = runProgram({ PPE_LAUNCHER, "-g", "-o", out, PPE_CALL_PATHS_F, "3000" });
        ASSERT_TRUE(run.exited && run.status == 0) << run.err;
        const RunResult report = runProgram({ PPEOUT, out });
        ASSERT_EQ(report.status, 0) << report.err;
        const std::map<std::string, CallRow> rows = callRows(report.out);
        ASSERT_TRUE(rows.count("leaf_") && rows.count("caller_a_") && rows.count("caller_b_")) << report.out;
        ASSERT_GT(pathTotals(report.out).first, 1000) << report.out;
        expectSeventyPercentThrough(report.out, "leaf_", "caller_a_");
        EXPECT_GT(rows.at("caller_a_").callers.count("call_paths_f"), 0u) << "the main program\n" << report.out;
    }

    // Two runs' profiles formatted together (ppeout on their directory): one tree, the samples of
    // both, the contexts of either, and the same shares.
    TEST_F(CallPathsTest, TwoRunsMergeIntoOneTree)
    {
        const std::string dir = m_dir.file("runs") + "/";
        std::filesystem::create_directory(dir);
        std::vector<std::pair<double, double>> each;
        for (int run = 0; run < 2; ++run) {
            const RunResult r = runProgram({ PPE_LAUNCHER, "-g", "-o", dir, PPE_CALL_PATHS, "700" });
            ASSERT_TRUE(r.exited && r.status == 0) << r.err;
        }
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            const RunResult one = runProgram({ PPEOUT, entry.path().string() });
            ASSERT_TRUE(one.exited && one.status == 0) << one.err;
            each.push_back(pathTotals(one.out));
        }
        ASSERT_EQ(each.size(), 2u);
        const RunResult merged = runProgram({ PPEOUT, dir });
        ASSERT_TRUE(merged.exited && merged.status == 0) << merged.err;
        const auto [samples, contexts] = pathTotals(merged.out);
        EXPECT_EQ(samples, each[0].first + each[1].first) << merged.out;
        EXPECT_GE(contexts, std::max(each[0].second, each[1].second)) << merged.out;
        EXPECT_LE(contexts, each[0].second + each[1].second) << merged.out;
        expectSeventyPercentThrough(merged.out, "leaf", "caller_a");
        // Written as a .ppe (--merge-out), the merge keeps its tree: formatted, the same call paths;
        // and merged again with a third run (a merge node by node, then of the nodes' merges), the
        // same as the three runs merged at once.
        std::vector<std::string> runs;
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            runs.push_back(entry.path().string());
        const std::string written = m_dir.file("merged.ppe");
        ASSERT_EQ(runProgram({ PPEOUT, "--merge-out", written, runs[0], runs[1] }).status, 0);
        const RunResult reread = runProgram({ PPEOUT, written });
        ASSERT_TRUE(reread.exited && reread.status == 0) << reread.err;
        EXPECT_EQ(callPathsSection(reread.out), callPathsSection(merged.out));
        const RunResult third
            = runProgram({ PPE_LAUNCHER, "-g", "-o", m_dir.file("third.ppe"), PPE_CALL_PATHS, "300" });
        ASSERT_TRUE(third.exited && third.status == 0) << third.err;
        const RunResult twoLevels
            = runProgram({ PPEOUT, "--merge-out", m_dir.file("all.ppe"), written, m_dir.file("third.ppe") });
        ASSERT_EQ(twoLevels.status, 0) << twoLevels.err;
        const RunResult all = runProgram({ PPEOUT, m_dir.file("all.ppe") });
        const RunResult atOnce
            = runProgram({ PPEOUT, "--merge-out", m_dir.file("once.ppe"), runs[0], runs[1], m_dir.file("third.ppe") });
        ASSERT_EQ(atOnce.status, 0) << atOnce.err;
        const RunResult once = runProgram({ PPEOUT, m_dir.file("once.ppe") });
        EXPECT_FALSE(callPathsSection(all.out).empty()) << all.out;
        EXPECT_EQ(callPathsSection(all.out), callPathsSection(once.out));
    }

    // A run killed with SIGKILL keeps its call paths: the tree lives in the live file, and `ppe
    // --recover` writes it out with the rest.
    TEST_F(CallPathsTest, ASigkilledRunIsRecoveredWithItsPaths)
    {
        const std::string dir = m_dir.file("killed") + "/";
        std::filesystem::create_directory(dir);
        const Running running = startProgram({ PPE_LAUNCHER, "-g", "-o", dir + "run.ppe", PPE_CALL_PATHS, "1000000" });
        std::string live;
        uint64_t paths = 0;
        for (int polls = 0; polls < 10000 && paths < 1500; ++polls) {
            for (const auto& entry : std::filesystem::directory_iterator(dir)) {
                if (entry.path().extension() == ".live")
                    live = entry.path().string();
            }
            if (!live.empty()) {
                auto text = recoverLiveFile(live);
                auto p = text ? parseProfile(*text, live) : Result<Profile>(text.error());
                paths = p ? p->calls.samples : 0;
            }
            usleep(2000); // polling interval only: the condition is the paths' samples
        }
        kill(running.pid, SIGKILL);
        const RunResult killed = waitProgram(running);
        ASSERT_GE(paths, 1500u) << "the run never had 1500 samples with a path\n" << killed.err;
        const std::string out = m_dir.file("recovered.ppe");
        const RunResult recovered = runProgram({ PPE_LAUNCHER, "--recover", live, "-o", out });
        ASSERT_EQ(recovered.status, 0) << recovered.err;
        const RunResult report = runProgram({ PPEOUT, out });
        ASSERT_EQ(report.status, 0) << report.err;
        EXPECT_GE(pathTotals(report.out).first, 1500) << report.out;
        expectSeventyPercentThrough(report.out, "leaf", "caller_a");
    }

    // ppeout --callers FUNC / --callees FUNC: those functions alone, the one side each asks for; a
    // name that matches none is a warning.
    TEST_F(CallPathsTest, CallersAndCalleesOfOneFunction)
    {
        profiled("300");
        const RunResult r = runProgram(
            { PPEOUT, "--callers", "leaf", "--callees", "recurse", "--callers", "nosuch", m_dir.file("calls.ppe") });
        ASSERT_EQ(r.status, 0) << r.err;
        const std::map<std::string, CallRow> rows = callRows(r.out);
        ASSERT_EQ(rows.size(), 2u) << r.out;
        EXPECT_EQ(rows.at("leaf").callers.size(), 2u) << r.out;
        EXPECT_TRUE(rows.at("leaf").callees.empty()) << r.out;
        EXPECT_TRUE(rows.at("recurse").callers.empty()) << r.out;
        EXPECT_GT(rows.at("recurse").callees.count("bottom"), 0u) << r.out;
        EXPECT_NE(r.err.find("--callers nosuch: no function of that name in the call paths"), std::string::npos)
            << r.err;
    }

    // The JSON report against its schema; then the leaf's share under caller_a as it holds it.
    const std::string kJsonLeafShare = schemaCheckedScript(R"(
leaf = [f for f in report["calls"]["functions"] if f["name"] == "leaf"][0]
print([e["percent"] for e in leaf["callers"] if e["name"] == "caller_a"][0])
)");

    // JSON (valid by its schema) and CSV hold the call paths the text shows.
    TEST_F(CallPathsTest, JsonAndCsvHoldTheTextsCallPaths)
    {
        const std::string text = profiled("300");
        const std::map<std::string, CallRow> rows = callRows(text);
        ASSERT_TRUE(rows.count("leaf") && rows.at("leaf").callers.count("caller_a")) << text;
        const double share = rows.at("leaf").callers.at("caller_a");
        const std::string json = m_dir.file("calls.json");
        ASSERT_EQ(runProgram({ PPEOUT, "-f", "json", m_dir.file("calls.ppe"), json }).status, 0);
        const RunResult checked
            = runProgram({ "python3", "-c", kJsonLeafShare, PPE_SOURCE_DIR "/docs/report.schema.json", json });
        ASSERT_EQ(checked.status, 0) << checked.err;
        if (checked.out.starts_with("SKIP"))
            GTEST_SKIP() << checked.out;
        EXPECT_NEAR(std::stod(checked.out), share, 0.005);
        const RunResult csv = runProgram({ PPEOUT, "-f", "csv", m_dir.file("calls.ppe") });
        ASSERT_EQ(csv.status, 0) << csv.err;
        const std::regex callerRow(R"((^|\n)caller,,,leaf,,,,[\d.]+,([\d.]+),,,,,,caller_a\r)");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(csv.out, m, callerRow)) << csv.out;
        EXPECT_NEAR(std::stod(m[2]), share, 0.005);
        EXPECT_NE(csv.out.find("\ncall,,,leaf,"), std::string::npos);
        EXPECT_NE(csv.out.find("\ncall-self,,,leaf,"), std::string::npos);
    }

    // ppeout --by function: the function table gives each function's inclusive share and error
    // beside its own, those of the call paths section; by unit there is no such column.
    TEST_F(CallPathsTest, TheFunctionTableGivesEachFunctionsInclusiveShare)
    {
        profiled("300");
        const RunResult byFunction = runProgram({ PPEOUT, "--by", "function", m_dir.file("calls.ppe"), "-" });
        ASSERT_EQ(byFunction.status, 0) << byFunction.err;
        const std::map<std::string, CallRow> calls = callRows(byFunction.out);
        const std::vector<Row> rows = moduleRows(byFunction.out);
        ASSERT_GE(rows.size(), 3u) << byFunction.out;
        for (const Row& r : rows) {
            ASSERT_TRUE(calls.count(r.name)) << r.name << "\n" << byFunction.out;
            EXPECT_DOUBLE_EQ(r.inclusive, calls.at(r.name).inclusive) << r.name;
            EXPECT_DOUBLE_EQ(r.inclusiveError, calls.at(r.name).inclusiveError) << r.name;
        }
        // JSON (valid by its schema) holds the same.
        const std::string json = m_dir.file("functions.json");
        ASSERT_EQ(runProgram({ PPEOUT, "-f", "json", "--by", "function", m_dir.file("calls.ppe"), json }).status, 0);
        const RunResult checked = runProgram({ "python3", "-c", schemaCheckedScript(R"(
print([m["inclusive_percent"] for m in report["modules"] if m["name"] == "leaf"][0])
)"),
            PPE_SOURCE_DIR "/docs/report.schema.json", json });
        ASSERT_EQ(checked.status, 0) << checked.err;
        if (!checked.out.starts_with("SKIP") && calls.count("leaf")) {
            EXPECT_NEAR(std::stod(checked.out), calls.at("leaf").inclusive, 0.005);
        }
        const RunResult byUnit = runProgram({ PPEOUT, "--by", "unit", m_dir.file("calls.ppe"), "-" });
        ASSERT_EQ(byUnit.status, 0) << byUnit.err;
        ASSERT_FALSE(moduleRows(byUnit.out).empty()) << byUnit.out;
        for (const Row& r : moduleRows(byUnit.out))
            EXPECT_EQ(r.inclusive, -1) << r.name;
    }

    // ppeout -f callgrind: callgrind_annotate --inclusive=yes (valgrind's reader of the calls=
    // lines KCachegrind draws its call graph from) gives each function the inclusive samples of
    // the text's call paths, a function with no sample of its own (main) included.
    TEST_F(CallPathsTest, CallgrindCallsGiveTheTextsInclusiveSamples)
    {
        if (!haveTool("callgrind_annotate"))
            GTEST_SKIP() << "callgrind_annotate not installed (Debian: valgrind)";
        const std::string text = profiled("300");
        const std::map<std::string, CallRow> rows = callRows(text);
        const double samples = pathTotals(text).first;
        ASSERT_GT(samples, 100) << text;
        const std::string cg = m_dir.file("calls.callgrind");
        const RunResult out = runProgram({ PPEOUT, "-f", "callgrind", m_dir.file("calls.ppe"), cg });
        ASSERT_EQ(out.status, 0) << out.err;
        const RunResult annotated = runProgram({ "callgrind_annotate", "--inclusive=yes", "--threshold=100", cg });
        ASSERT_EQ(annotated.status, 0) << annotated.err;
        EXPECT_EQ(annotated.err.find("WARNING"), std::string::npos) << annotated.err;
        std::map<std::string, double> inclusive; // "N (P%)  file:function [object]"
        const std::regex row(R"(^ *([0-9,]+) \( *[0-9.]+%\)  \S+:(\S+) \[)");
        std::istringstream in(annotated.out);
        for (std::string line; std::getline(in, line);) {
            std::smatch m;
            if (std::regex_search(line, m, row)) {
                std::string digits = m[1].str();
                std::erase(digits, ',');
                inclusive[m[2].str()] = std::stod(digits);
            }
        }
        for (const char* name : { "main", "caller_a", "caller_b", "recurse", "leaf", "call_paths_apply" }) {
            const std::string inText
                = name == std::string("call_paths_apply") ? "call_paths_apply (libcall_paths_lib.so)" : name;
            ASSERT_TRUE(rows.count(inText) && inclusive.count(name)) << name << "\n" << annotated.out << text;
            EXPECT_NEAR(inclusive.at(name), rows.at(inText).inclusive * samples / 100, 0.001 * samples + 2)
                << name << "\n"
                << annotated.out << text;
        }
    }

    // A forked child's profile has its own call paths, none of its parent's from before the fork
    // (the tree's memory was copied with the rest), and the parent keeps them.
    TEST_F(CallPathsTest, AForkedChildHasItsOwnTree)
    {
        const std::string dir = m_dir.file("fork") + "/";
        std::filesystem::create_directory(dir);
        const RunResult r = runProgram({ PPE_LAUNCHER, "-g", "-o", dir, PPE_FORK_CHILD, "3", "first" });
        ASSERT_TRUE(r.exited && r.status == 0) << r.err;
        std::map<std::string, std::map<std::string, CallRow>> byRole; // "parent", "child"
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            const RunResult one = runProgram({ PPEOUT, entry.path().string() });
            ASSERT_TRUE(one.exited && one.status == 0) << one.err;
            const std::map<std::string, CallRow> rows = callRows(one.out);
            byRole[rows.count("in_child") ? "child" : "parent"] = rows;
        }
        ASSERT_EQ(byRole.size(), 2u) << "a profile each, the child's with in_child";
        EXPECT_EQ(byRole["child"].count("in_parent"), 0u) << "the parent's paths in the child's tree";
        ASSERT_GT(byRole["parent"].count("in_parent"), 0u);
        EXPECT_GT(byRole["parent"].at("in_parent").inclusive, 90);
        EXPECT_GT(byRole["child"].at("in_child").inclusive, 90);
    }

    // The leaf's samples under each caller in `perf script -F ip,sym` of a --call-graph dwarf
    // recording: {under caller_a, under caller_b}.
    std::pair<double, double> perfLeafCallers(const std::string& script)
    {
        std::istringstream in(script);
        std::vector<std::string> frames;
        double a = 0, b = 0;
        auto sample = [&]() {
            if (frames.size() >= 2 && frames[0] == "leaf") {
                a += frames[1] == "caller_a";
                b += frames[1] == "caller_b";
            }
            frames.clear();
        };
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            std::string ip, sym;
            if (!(fields >> ip >> sym)) {
                sample();
                continue;
            }
            if (line.find("(inlined)") == std::string::npos)
                frames.push_back(sym);
        }
        sample();
        return { a, b };
    }

    // perf record --call-graph dwarf (8 KB of stack a sample, as ppe -g) of the same program gives
    // the leaf's callers the same shares, within three errors of the two.
    TEST_F(CallPathsTest, AgreesWithPerfRecordCallGraphDwarf)
    {
        const std::string data = m_dir.file("perf.data");
        const RunResult recorded = runProgram({ "perf", "record", "-q", "-e", "cpu-clock", "-F", "2000", "--call-graph",
            "dwarf", "-o", data, "--", PPE_CALL_PATHS, "1500" });
        if (!recorded.exited || recorded.status != 0)
            GTEST_SKIP() << "perf record --call-graph dwarf cannot run here (Debian: linux-perf): " << recorded.err;
        const RunResult script = runProgram({ "perf", "script", "-i", data, "-F", "ip,sym" });
        ASSERT_TRUE(script.exited && script.status == 0) << script.err;
        const auto [perfA, perfB] = perfLeafCallers(script.out);
        ASSERT_GT(perfA + perfB, 500) << script.out.substr(0, 2000);
        const double q = perfA / (perfA + perfB);

        const std::string text = profiled("1500");
        const std::map<std::string, CallRow> rows = callRows(text);
        ASSERT_TRUE(rows.count("leaf")) << text;
        const std::regex total(R"((\d+) samples with a call path)");
        std::smatch m;
        ASSERT_TRUE(std::regex_search(text, m, total)) << text;
        const double leafSamples = std::stod(m[1]) * rows.at("leaf").inclusive / 100;
        const double p = rows.at("leaf").callers.count("caller_a") ? rows.at("leaf").callers.at("caller_a") / 100 : 0;
        const double error = std::sqrt(p * (1 - p) / leafSamples + q * (1 - q) / (perfA + perfB));
        EXPECT_NEAR(p, q, 3 * error + 0.01)
            << "ppe " << p << " of " << leafSamples << ", perf " << q << " of " << perfA + perfB << "\n"
            << text;
    }

} // namespace
} // namespace ppe::testing
