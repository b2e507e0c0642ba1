// makeReport, the formatter's entry point: the model a request gives, from the golden fixture (a
// map and a listing) and from a program built here (DWARF only), and bad inputs as errors.
#include "ppe/debuginfo/debug_info.h"
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/make_report.h"

#include "run_program.h"
#include "temp_dir.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>

namespace ppe::formatter {
namespace {

    using testing::runProgram;
    using testing::TempDir;

    const std::string kData = PPE_REPORT_DATA;

    ReportRequest ktestRequest()
    {
        ReportRequest request;
        request.map = kData + "/ktest.map";
        request.profiles = { kData + "/ktest.ppe" };
        request.output = "-";
        return request;
    }

    double rowHits(const ModuleLines& m)
    {
        double hits = m.withoutLine;
        for (const FileLines& f : m.files) {
            for (const LineRow& r : f.rows)
                hits += r.hits;
        }
        return hits;
    }

    TEST(MakeReport, MapAndListing)
    {
        ReportRequest request = ktestRequest();
        request.listings = { kData + "/ktest.lis" };
        request.sourceDirs = { kData + "/src" };
        Messages messages;
        const Result<Report> r = makeReport(request, messages);
        ASSERT_TRUE(r.ok()) << r.error().str();
        EXPECT_TRUE(messages.empty()) << messages.front().text;
        // The numbers of ktest-lines.ppl.
        EXPECT_EQ(r->profile.total, 2068u);
        EXPECT_EQ(r->totals.system, 2u);
        EXPECT_EQ(fmt::format("{:.2f} {:.2f} {:.2f}", r->totals.programPercent, r->totals.librariesPercent,
                      r->totals.otherPercent),
            "99.90 0.10 0.00");
        EXPECT_EQ(r->totals.lastAddress, 0x1517u);
        EXPECT_EQ(r->totals.rangeBytes, 5400u);
        EXPECT_DOUBLE_EQ(r->totals.intervalMs, 0.5);
        ASSERT_GE(r->modules.size(), 3u);
        EXPECT_EQ(r->modules[0].name, "gram_");
        EXPECT_DOUBLE_EQ(r->modules[0].hits, 1136.0);
        EXPECT_DOUBLE_EQ(r->modules[0].percent, 100.0 * 1136 / 2066);
        EXPECT_DOUBLE_EQ(r->modules[0].error, binomialErrorPercent(1136, 2066));
        EXPECT_NEAR(r->modules.back().accumulated, 100.0 - r->unattributed.percent, 1e-9);
        // The program text of the three busy subroutines, from the listing, text from src/.
        ASSERT_EQ(r->lines.size(), 3u);
        for (const ModuleLines& m : r->lines) {
            EXPECT_EQ(m.origin, "listing " + kData + "/ktest.lis") << m.name;
            ASSERT_FALSE(m.files.empty());
            EXPECT_EQ(m.files[0].textPath, kData + "/src/ktest.f90");
            EXPECT_NEAR(rowHits(m), m.hits, 1e-9) << m.name;
        }
        EXPECT_EQ(r->lines[1].name, "mxm_");
        ASSERT_EQ(r->objects.size(), 0u) << "1 of 2068 samples each: below the 1 % threshold";
    }

    TEST(MakeReport, ThresholdsComeFromTheRequest)
    {
        ReportRequest request = ktestRequest();
        request.listings = { kData + "/ktest.lis" };
        request.lineThreshold = 50;
        request.objectThreshold = 0;
        request.topFunctions = 0;
        Messages messages;
        const Result<Report> r = makeReport(request, messages);
        ASSERT_TRUE(r.ok()) << r.error().str();
        ASSERT_EQ(r->lines.size(), 1u) << "only gram_ has 50 %";
        EXPECT_EQ(r->lines[0].name, "gram_");
        ASSERT_EQ(r->objects.size(), 2u);
        EXPECT_DOUBLE_EQ(r->objects[0].percent, 100.0 / 2068);
        EXPECT_TRUE(r->objects[0].functions.empty());
    }

    // A program built here, and a profile of it that puts every sample on its busy function.
    struct Program {
        TempDir dir;
        std::string path = dir.file("prog");
        debuginfo::DebugInfo info;
        const debuginfo::Function* busy = nullptr;
    };

    void build(Program& p)
    {
        {
            std::ofstream source(p.dir.file("prog.c"));
            source << "volatile long sink;\n"
                      "__attribute__((noinline)) void busy(long n)\n"
                      "{\n"
                      "    for (long i = 0; i < n; ++i)\n"
                      "        sink += i;\n"
                      "}\n"
                      "int main(void) { busy(1000); return 0; }\n";
        }
        const testing::RunResult gcc = runProgram({ "gcc", "-g", "-O1", "-o", "prog", "prog.c" }, {}, p.dir.path());
        ASSERT_EQ(gcc.status, 0) << gcc.err;
        auto info = debuginfo::loadDebugInfo(p.path, debuginfo::Options {});
        ASSERT_TRUE(info.ok()) << info.error().str();
        p.info = std::move(info.value());
        for (const debuginfo::Function& f : p.info.functions) {
            if (f.name == "busy" && !f.ranges.empty())
                p.busy = &f;
        }
        ASSERT_NE(p.busy, nullptr);
    }

    // A profile of `p`'s busy function: 100 samples on its first byte.
    std::string writeProfile(const Program& p, const std::string& buildId)
    {
        const uint64_t start = p.busy->ranges.front().start, end = p.busy->ranges.front().end;
        const std::string path = p.dir.file("prog.ppe");
        std::ofstream out(path);
        out << "ppe-profile 1\nproducer \"test\"\nstatus complete\nhost \"h\"\narch \"x86_64\"\npid 1\n"
               "start-time 2026-11-23T01:16:07Z\nend-time 2026-11-23T01:16:08Z\n"
            << "image \"" << p.path << "\"\nbuild-id " << buildId << "\ncommand \"prog\"\nload-bias 0x0\n"
            << fmt::format("range {:#x} {:#x}\n", start, end)
            << "mechanism \"test\"\nmode 1 cpu\ninterval 5000\nbin-width 1\n"
            << fmt::format("bin-count {}\n", end - start) << "count in-range 100\ncount total 100\n"
            << fmt::format("bin {:#x} 100\n", start) << "end\n";
        return path;
    }

    TEST(MakeReport, DwarfOnly)
    {
        Program p;
        build(p);
        ASSERT_NE(p.busy, nullptr);
        ReportRequest request;
        request.profiles = { writeProfile(p, p.info.buildId) };
        Messages messages;
        const Result<Report> units = makeReport(request, messages);
        ASSERT_TRUE(units.ok()) << units.error().str();
        EXPECT_TRUE(messages.empty()) << messages.front().text;
        ASSERT_EQ(units->modules.size(), 1u);
        EXPECT_EQ(units->modules[0].name, "prog.c");
        EXPECT_DOUBLE_EQ(units->modules[0].percent, 100.0);
        ASSERT_EQ(units->lines.size(), 1u);
        const ModuleLines& lines = units->lines[0];
        EXPECT_EQ(lines.origin, "DWARF line table");
        ASSERT_FALSE(lines.files.empty());
        EXPECT_EQ(lines.files[0].textPath, p.dir.file("prog.c"));
        EXPECT_EQ(lines.files[0].rows.size(), 7u) << "a compile unit lists its whole file";
        EXPECT_NEAR(rowHits(lines), 100.0, 1e-9);

        request.by = ModuleKind::Function;
        const Result<Report> functions = makeReport(request, messages);
        ASSERT_TRUE(functions.ok()) << functions.error().str();
        ASSERT_EQ(functions->modules.size(), 1u);
        EXPECT_EQ(functions->modules[0].name, "busy");
    }

    TEST(MakeReport, AnotherBuildIsRefusedUnlessAskedFor)
    {
        Program p;
        build(p);
        ASSERT_NE(p.busy, nullptr);
        ReportRequest request;
        request.profiles = { writeProfile(p, "00112233445566778899aabbccddeeff00112233") };
        Messages messages;
        const Result<Report> refused = makeReport(request, messages);
        ASSERT_FALSE(refused.ok());
        EXPECT_NE(refused.error().str().find(p.path + ": build id "), std::string::npos) << refused.error().str();
        EXPECT_NE(refused.error().str().find("--ignore-build-id"), std::string::npos);

        request.ignoreBuildId = true;
        const Result<Report> anyway = makeReport(request, messages);
        ASSERT_TRUE(anyway.ok()) << anyway.error().str();
        ASSERT_EQ(messages.size(), 1u);
        EXPECT_EQ(messages[0].kind, Message::Kind::Warning);
        EXPECT_NE(messages[0].text.find("formatted anyway"), std::string::npos) << messages[0].text;
    }

    // Every bad input comes back as an error naming its file; nothing is thrown.
    TEST(MakeReport, BadInputsAreErrorsNamingTheFile)
    {
        TempDir dir;
        std::ofstream(dir.file("bad.ppe")) << "ppe-profile 1\nproducer \"x\"\n";
        struct Case {
            ReportRequest request;
            std::string expected;
        };
        std::vector<Case> cases;
        auto add = [&](auto change, std::string expected) {
            ReportRequest request = ktestRequest();
            change(request);
            cases.push_back({ request, std::move(expected) });
        };
        add([&](ReportRequest& r) { r.map = dir.file("none.map"); }, dir.file("none.map") + ": ");
        add([&](ReportRequest& r) { r.profiles = { dir.file("none.ppe") }; }, dir.file("none.ppe") + ": ");
        add([&](ReportRequest& r) { r.profiles = { dir.file("bad.ppe") }; }, dir.file("bad.ppe") + ":2: truncated");
        add([&](ReportRequest& r) { r.profiles = { kData + "/ktest.map" }; },
            kData + "/ktest.map:1: not a ppe profile");
        add([&](ReportRequest& r) { r.profiles = {}; }, "0 profiles");
        add([&](ReportRequest& r) { r.exe = dir.file("none"); }, dir.file("none") + ": ");
        add([&](ReportRequest& r) { r.map = ""; }, "/home/user/ktest: ");
        for (const Case& c : cases) {
            Messages messages;
            std::optional<Result<Report>> r;
            EXPECT_NO_THROW(r.emplace(makeReport(c.request, messages))) << c.expected;
            ASSERT_TRUE(r && !r->ok()) << c.expected;
            EXPECT_EQ(r->error().str().find(c.expected), 0u) << r->error().str();
        }
        Messages messages;
        ReportRequest swapped = ktestRequest();
        swapped.profiles = { kData + "/ktest.map" };
        const Result<Report> r = makeReport(swapped, messages);
        ASSERT_FALSE(r.ok());
        EXPECT_NE(r.error().str().find("(it looks like a linker map: the order is MAP_FILE PPE_FILE OUTPUT)"),
            std::string::npos);
    }

    TEST(MakeReport, ABadListingIsAWarningAndTheReportIsMade)
    {
        TempDir dir;
        std::ofstream(dir.file("other.lis")) << "not a listing\n";
        ReportRequest request = ktestRequest();
        request.listings = { dir.file("other.lis"), dir.file("*.none") };
        Messages messages;
        const Result<Report> r = makeReport(request, messages);
        ASSERT_TRUE(r.ok()) << r.error().str();
        EXPECT_TRUE(r->lines.empty());
        ASSERT_EQ(messages.size(), 2u);
        EXPECT_EQ(messages[0].text, dir.file("other.lis") + ": not an assembler listing, skipped");
        EXPECT_EQ(messages[1].text, dir.file("*.none") + ": no file matches this pattern");
    }

} // namespace
} // namespace ppe::formatter
