// The report model: PPE's statistics and the attribution of bins to modules.
#include "ppe/formatter/report.h"
#include "ppe/formatter/text_report.h"

#include "profile_builder.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace ppe {
namespace {

using testing::profileWith;

TEST(Statistics, TableTwoFirstRow)
{
    // PPE's Table 2: NTH_LLL, 5794 of 27207 hits -> 21.30 +- 0.25.
    EXPECT_EQ(fmt::format("{:.2f} +- {:.2f}", 100.0 * 5794 / 27207, binomialErrorPercent(5794, 27207)), "21.30 +- 0.25");
    EXPECT_EQ(fmt::format("{:.2f}", binomialErrorPercent(904, 27207)), "0.11"); // DDOTX
    EXPECT_EQ(fmt::format("{:.2f}", binomialErrorPercent(9, 27207)), "0.01"); // NTH_SPT
    EXPECT_DOUBLE_EQ(binomialErrorPercent(10, 10), 0.0);
    EXPECT_DOUBLE_EQ(binomialErrorPercent(0, 0), 0.0);
}

TEST(BuildReport, OrdersModulesByHitsAndAccumulatesTo100)
{
    const std::vector<CodeModule> modules = { { "a.o", { { 0x1000, 0x1100 } } }, { "b.o", { { 0x1100, 0x1180 } } },
        { "c.o", { { 0x1180, 0x1200 } } }, { "idle.o", { { 0x1200, 0x1300 } } } };
    const Report r = buildReport(profileWith({ { 0x1010, 10 }, { 0x1110, 60 }, { 0x1190, 30 } }), modules);
    ASSERT_EQ(r.modules.size(), 3u) << "modules without hits are left out";
    EXPECT_EQ(r.modules[0].name, "b.o");
    EXPECT_EQ(r.modules[1].name, "c.o");
    EXPECT_EQ(r.modules[2].name, "a.o");
    EXPECT_DOUBLE_EQ(r.modules[0].percent, 60.0);
    EXPECT_DOUBLE_EQ(r.modules[1].accumulated, 90.0);
    EXPECT_DOUBLE_EQ(r.modules.back().accumulated, 100.0);
    EXPECT_EQ(r.modules[0].address, 0x1100u);
    EXPECT_EQ(r.modules[0].size, 0x80u);
    EXPECT_FALSE(r.splitBins);
    EXPECT_DOUBLE_EQ(r.unattributed, 0.0);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(BuildReport, ModuleWithSeveralSections)
{
    const std::vector<CodeModule> modules = { { "main.o", { { 0x1000, 0x1010 }, { 0x1800, 0x1810 } } },
        { "other.o", { { 0x1400, 0x1410 } } } };
    const Report r = buildReport(profileWith({ { 0x1008, 5 }, { 0x1400, 3 }, { 0x1804, 7 } }), modules);
    ASSERT_EQ(r.modules.size(), 2u);
    EXPECT_EQ(r.modules[0].name, "main.o");
    EXPECT_DOUBLE_EQ(r.modules[0].hits, 12.0);
    EXPECT_EQ(r.modules[0].size, 0x20u);
}

TEST(BuildReport, StraddlingBinIsSplitByBytes)
{
    // A 16-byte bin at 0x1000: 4 bytes belong to a.o, 12 to b.o.
    const std::vector<CodeModule> modules = { { "a.o", { { 0x0ff0, 0x1004 } } }, { "b.o", { { 0x1004, 0x1100 } } } };
    const Report r = buildReport(profileWith({ { 0x1000, 100 } }, 16, 1), modules);
    ASSERT_EQ(r.modules.size(), 2u);
    EXPECT_EQ(r.modules[0].name, "b.o");
    EXPECT_DOUBLE_EQ(r.modules[0].hits, 75.0);
    EXPECT_DOUBLE_EQ(r.modules[1].hits, 25.0);
    EXPECT_TRUE(r.splitBins);
    EXPECT_NE(renderTextReport(r).find("split in proportion"), std::string::npos);
}

TEST(BuildReport, HitsWhereNoCodeIsAreCountedAndWarned)
{
    const std::vector<CodeModule> modules = { { "a.o", { { 0x1000, 0x1010 } } } };
    const Report r = buildReport(profileWith({ { 0x1004, 90 }, { 0x1020, 10 } }), modules);
    EXPECT_DOUBLE_EQ(r.unattributed, 10.0);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("10 of 100 in-range hits"), std::string::npos) << r.warnings[0];
    EXPECT_NE(renderTextReport(r).find("(no module)"), std::string::npos);
    EXPECT_DOUBLE_EQ(r.modules[0].percent, 90.0) << "percentages stay of all in-range hits";
}

} // namespace
} // namespace ppe
