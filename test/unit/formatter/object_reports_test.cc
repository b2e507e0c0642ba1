// Shared objects treated as the executable: which ones, their samples as a profile of their code,
// their module table and program text; code no function owns shown by its hottest addresses.
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/object_reports.h"
#include "ppe/formatter/text_report.h"

#include "profile_builder.h"

#include <gtest/gtest.h>

namespace ppe::formatter {
namespace {

    TEST(ObjectReports, NamesMatchThePathTheFileNameOrTheNameWithoutVersion)
    {
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so", "libkernel.so"));
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so.1.2", "libkernel.so"));
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so.1.2", "libkernel.so.1"));
        EXPECT_TRUE(objectNameMatches("/lib/libkernel.so.1.2", "/lib/libkernel.so.1.2"));
        EXPECT_FALSE(objectNameMatches("/lib/libkernel2.so", "libkernel"));
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", "kernel.so"));
        EXPECT_FALSE(objectNameMatches("/lib/libkernel.so", ""));
    }

    TEST(ObjectReports, BusyObjectsAndNamedOnesAreAnalysed)
    {
        Profile p = testing::profileWith({ { 0x1000, 50 } });
        p.total = 1000;
        p.objects = { { "/lib/libbusy.so", "", 600, {} }, { "/lib/libone.so", "", 10, {} },
            { "/lib/librare.so.3", "", 5, {} } };
        EXPECT_EQ(objectsForAnalysis(p, 1.0, {}), (std::vector<size_t> { 0, 1 })) << "1 % of all samples and more";
        EXPECT_EQ(objectsForAnalysis(p, 2.0, { "librare.so" }), (std::vector<size_t> { 0, 2 }));
        EXPECT_EQ(objectsForAnalysis(p, 100.0, {}), (std::vector<size_t> {}));
        p.objects[1].hits = 9;
        p.total = 600; // 1.5 % of all, but too few hits to say anything line by line
        EXPECT_EQ(objectsForAnalysis(p, 1.0, {}), (std::vector<size_t> { 0 }));
    }

    TEST(ObjectReports, AnObjectsSamplesBecomeOneByteBinsAtLinkTimeAddresses)
    {
        Profile p = testing::profileWith({ { 0x1000, 50 } });
        p.total = 400;
        p.counts[kShared] = 350;
        p.mode = SampleMode::Cpu;
        p.image = "/bin/prog";
        p.objects.push_back(SharedObject { "/lib/libother.so", "", 0, {} });
        const SharedObject o { "/lib/libk.so", "ab", 350,
            { { 0x10, 5 }, { 0x2010, 300 }, { 0x2018, 40 }, { 0x9000, 5 } } };
        p.objects.push_back(o);
        ObjectCode code;
        code.addressOfOffset = [](uint64_t offset) -> std::optional<uint64_t> {
            return offset < 0x8000 ? std::optional<uint64_t>(offset + 0x1000) : std::nullopt;
        };
        code.code = { 0x1000, 0x4000 };
        const Profile q = objectProfile(p, o, code);
        ASSERT_EQ(q.bins.size(), 3u);
        EXPECT_EQ(q.bins[1].address, 0x3010u);
        EXPECT_EQ(q.bins[1].count, 300u);
        EXPECT_EQ(q.inRange(), 345u) << "the offset no segment loads is left out";
        EXPECT_EQ(q.counts[kShared], 55u) << "the executable's 50 and the object's 5 it cannot place";
        EXPECT_EQ(q.total, 400u) << "All % stays of all samples";
        EXPECT_EQ(q.rangeStart, 0x1000u);
        EXPECT_EQ(q.rangeEnd, 0x4000u);
        EXPECT_EQ(q.binCount, 0x3000u);
        EXPECT_EQ(q.binWidth, 1u);
        EXPECT_EQ(q.maxBin, 300u);
        EXPECT_EQ(q.mode, SampleMode::Cpu);
        EXPECT_EQ(q.image, "/lib/libk.so");
        EXPECT_EQ(q.buildId, "ab");
        ASSERT_EQ(q.objects.size(), 1u);
        EXPECT_EQ(q.objects[0].path, "/lib/libother.so");
        EXPECT_EQ(findObject(p, "libk.so", "p.ppe").value(), 1u);
        EXPECT_EQ(findObject(p, "libz.so", "p.ppe").error().str(),
            "p.ppe: no shared object named libz.so took samples (those that did: libother.so, libk.so)");

        // The executable's path makes its module table and lines; the section names the object.
        std::vector<CodeModule> modules = { { "k.c", { { 0x3000, 0x3100 } }, 0, true } };
        LineTable table;
        table.origin = "DWARF line table";
        table.files = { "k.c" };
        table.ranges = { { 0x3000, 0x3012, 0, 7 }, { 0x3012, 0x3100, 0, 8 } };
        table.text = { { "1", "2", "3", "4", "5", "6", "loop", "body" } };
        table.textPaths = { "k.c" };
        Report r = buildReport(q, modules);
        analyseLines(r, modules, { table }, modulesForLineAnalysis(r, modules, 1.0));
        const ObjectAnalysis a = objectAnalysis(o, std::move(r));
        EXPECT_EQ(a.name, "libk.so");
        EXPECT_DOUBLE_EQ(a.percent, 87.5);
        ASSERT_EQ(a.modules.size(), 1u);
        EXPECT_DOUBLE_EQ(a.modules[0].hits, 340.0);
        EXPECT_DOUBLE_EQ(a.modules[0].percentOfAll, 85.0);
        EXPECT_DOUBLE_EQ(a.unattributed.hits, 5.0) << "offset 0x10 lies in no module";
        ASSERT_EQ(a.lines.size(), 1u);
        // The module's name as its row has it (renderers add the object's name where they need to).
        EXPECT_EQ(a.lines[0].name, a.modules[0].name);
        EXPECT_EQ(a.lines[0].name, "k.c");

        Report whole = buildReport(p, {});
        whole.objectAnalyses.push_back(a);
        const std::string text = renderTextReport(whole);
        EXPECT_NE(text.find("PPE - SHARED OBJECT libk.so IN DECREASING CPU TIME, % OF ITS 350 SAMPLES (87.50% OF "
                            "ALL).\n Path: /lib/libk.so\n"),
            std::string::npos)
            << text;
        EXPECT_NE(text.find("Program text.  Module k.c in libk.so  Hits total 340"), std::string::npos) << text;
        EXPECT_NE(text.find("     7      300 XXXXX"), std::string::npos) << text;
    }

    TEST(ObjectReports, CodeNoFunctionOwnsIsShownByItsHottestAddresses)
    {
        Profile p = testing::profileWith({ { 0x1000, 100 } });
        p.total = 1000;
        p.objects.push_back(SharedObject { "/lib/libs.so", "", 900,
            { { 0x1004, 10 }, { 0x1100, 500 }, { 0x1108, 300 }, { 0x1110, 60 }, { 0x9000, 30 } } });
        Report r = buildReport(p, { { "main.o", { { 0x1000, 0x1100 } } } });
        auto codeOf = [](const SharedObject&) -> Result<ObjectCode> {
            ObjectCode code;
            code.functions = { { "exported", { { 0x1000, 0x1010 } } } };
            code.addressOfOffset = [](uint64_t offset) -> std::optional<uint64_t> {
                return offset < 0x4000 ? std::optional<uint64_t>(offset) : std::nullopt;
            };
            return code;
        };
        addSharedObjects(r, codeOf, 1.0, 2);
        ASSERT_EQ(r.objects.size(), 1u);
        const ObjectRow& o = r.objects[0];
        EXPECT_DOUBLE_EQ(o.withoutFunction.hits, 890.0);
        ASSERT_EQ(o.hottest.size(), 2u);
        EXPECT_EQ(o.hottest[0].address, 0x1100u);
        EXPECT_DOUBLE_EQ(o.hottest[0].hits, 500.0);
        EXPECT_DOUBLE_EQ(o.hottest[0].percent, 50.0);
        EXPECT_DOUBLE_EQ(o.hottest[0].error, binomialErrorPercent(500, 1000));
        EXPECT_EQ(o.hottest[1].address, 0x1108u);
        EXPECT_EQ(o.moreAddresses, 2u);
        const std::string text = renderTextReport(r);
        EXPECT_NE(text.find("         0x1100 in libs.so    50.00 +-  1.58         500\n"), std::string::npos) << text;
        EXPECT_NE(text.find("(2 more addresses without a function, 90 hits)"), std::string::npos) << text;
        EXPECT_EQ(text.find("(no function)"), std::string::npos) << text;
    }

} // namespace
} // namespace ppe::formatter
