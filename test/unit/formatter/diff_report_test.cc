// The comparison model of `ppeout --diff`: its tests on numbers worked out by hand, Holm's
// correction, and how rows of two reports are matched.
#include "ppe/formatter/build_report.h"
#include "ppe/formatter/diff_report.h"
#include "ppe/formatter/text_diff.h"

#include "profile_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ppe::formatter {
namespace {

    using ppe::testing::profileWith;

    // 100 of 1000 against 150 of 1000: pooled p = 0.125, se = sqrt(0.125 * 0.875 * 2 / 1000) =
    // 0.0147902, z = 0.05 / se = 3.3806; two-sided p = 2 (1 - Phi(3.3806)) = 0.000723 (tables:
    // Phi(3.38) = 0.99964).
    TEST(DiffStatistics, TwoProportionTestOnHandWorkedNumbers)
    {
        const ZTest t = twoProportionTest(100, 1000, 150, 1000);
        EXPECT_NEAR(t.z, 3.3806, 0.0001);
        EXPECT_NEAR(t.p, 0.000723, 0.000002);
        const ZTest down = twoProportionTest(150, 1000, 100, 1000);
        EXPECT_NEAR(down.z, -3.3806, 0.0001);
        EXPECT_DOUBLE_EQ(down.p, t.p);
        EXPECT_EQ(twoProportionTest(0, 1000, 0, 2000).z, 0); // nothing on either side: no evidence
        EXPECT_EQ(twoProportionTest(0, 1000, 0, 2000).p, 1);
        EXPECT_EQ(twoProportionTest(1, 0, 1, 10).p, 1);
    }

    // Equal sample times: (500 - 400) / sqrt(900) = 3.3333, p = 0.000858. Unequal: 400 samples of
    // 1 ms against 1000 of 0.5 ms: (0.5 - 0.4) / sqrt(400e-6 + 1000 x 0.25e-6) = 3.9223.
    TEST(DiffStatistics, PoissonTimeTestOnHandWorkedNumbers)
    {
        const ZTest t = poissonTimeTest(400, 0.0005, 500, 0.0005);
        EXPECT_NEAR(t.z, 3.3333, 0.0001);
        EXPECT_NEAR(t.p, 0.000858, 0.000002);
        EXPECT_NEAR(poissonTimeTest(400, 0.001, 1000, 0.0005).z, 3.9223, 0.0001);
        EXPECT_EQ(poissonTimeTest(0, 0.001, 0, 0.001).p, 1);
        EXPECT_NEAR(twoSidedP(1.959964), 0.05, 1e-6);
    }

    // m = 4: sorted 0.005 <= 0.05/4 and 0.01 <= 0.05/3 are rejected; 0.03 > 0.05/2 stops the rest.
    TEST(DiffStatistics, HolmStepsDownAndStopsAtTheFirstAcceptance)
    {
        const HolmResult h = holm({ 0.01, 0.04, 0.03, 0.005 }, 0.05);
        EXPECT_EQ(h.rejected, (std::vector<bool> { true, false, false, true }));
        EXPECT_NEAR(h.threshold[3], 0.0125, 1e-12);
        EXPECT_NEAR(h.threshold[0], 0.05 / 3, 1e-12);
        EXPECT_NEAR(h.threshold[2], 0.025, 1e-12);
        EXPECT_NEAR(h.threshold[1], 0.05, 1e-12);
        // 0.049 is under its own bound (0.05) but comes after an acceptance: not rejected.
        EXPECT_EQ(holm({ 0.001, 0.03, 0.049 }, 0.05).rejected, (std::vector<bool> { true, false, false }));
        EXPECT_TRUE(holm({}, 0.05).rejected.empty());
    }

    CodeModule unit(std::string name, uint64_t start, uint64_t end) { return { std::move(name), { { start, end } } }; }

    CodeModule function(std::string name, std::string inUnit, uint64_t start, uint64_t end)
    {
        return { std::move(name), { { start, end } }, -1, false, std::move(inUnit) };
    }

    // A report whose module m took hits[m] samples (at 0x1000 + 0x100 m), 0.5 ms each.
    Report reportOf(const std::vector<CodeModule>& modules, const std::vector<uint64_t>& hits)
    {
        std::vector<Bin> bins;
        for (size_t m = 0; m < hits.size(); ++m) {
            if (hits[m])
                bins.push_back({ modules[m].ranges.front().start, hits[m] });
        }
        Profile p = profileWith(std::move(bins));
        p.interval = 5000;
        return buildReport(std::move(p), modules);
    }

    std::vector<CodeModule> fourFunctions()
    {
        return { function("north", "work.c", 0x1000, 0x1100), function("east", "work.c", 0x1100, 0x1200),
            function("south", "work.c", 0x1200, 0x1300), function("west", "work.c", 0x1300, 0x1400) };
    }

    const DiffRow& rowNamed(const DiffTable& t, const std::string& name)
    {
        const auto it = std::find_if(t.rows.begin(), t.rows.end(), [&](const DiffRow& r) { return r.name == name; });
        if (it == t.rows.end())
            throw std::runtime_error("no row " + name);
        return *it;
    }

    TEST(DiffTable, OneFunctionTwiceAsSlowIsTheOnlySignificantRow)
    {
        const Report base = reportOf(fourFunctions(), { 1000, 1000, 1000, 1000 });
        const Report slowed = reportOf(fourFunctions(), { 1000, 1000, 2000, 1000 });
        const DiffTable t = diffTable(base, slowed, ModuleKind::Function);
        ASSERT_EQ(t.rows.size(), 4u);
        EXPECT_EQ(t.compared, 4u);
        EXPECT_EQ(t.significant, 1u);
        const DiffRow& south = t.rows.front(); // significant rows first
        EXPECT_EQ(south.name, "south (work.c)");
        EXPECT_TRUE(south.significant);
        EXPECT_NEAR(south.base.percent, 25.0, 1e-9);
        EXPECT_NEAR(south.changed.percent, 40.0, 1e-9);
        EXPECT_NEAR(south.deltaPercent, 15.0, 1e-9);
        EXPECT_NEAR(south.deltaSeconds, 0.5, 1e-9); // 1000 more samples of 0.5 ms
        EXPECT_NEAR(south.secondsError, 0.0005 * std::sqrt(3000.0), 1e-12);
        EXPECT_NEAR(south.time.z, 1000 / std::sqrt(3000.0), 1e-9);
        const DiffRow& north = rowNamed(t, "north (work.c)");
        // Its share fell from 25 % to 20 % (z = -0.05 / sqrt(0.2222 x 0.7778 x (1/4000 + 1/5000)) =
        // -5.67), but its time did not change: not significant.
        EXPECT_NEAR(north.share.z, -5.67, 0.01);
        EXPECT_TRUE(north.shareSignificant);
        EXPECT_EQ(north.time.z, 0);
        EXPECT_FALSE(north.significant);
    }

    // Every function faster, south least (issue 34): south's time fell from 1000 to 750 samples
    // (z = -250 / sqrt(1750) x ... = -5.98) while its share rose from 25 % to 3/7 (750 of 1750).
    // Its time has its own verdict; the word says it got faster, less than the rest.
    TEST(DiffTable, FasterButLessThanTheRestHasATimeVerdict)
    {
        const Report base = reportOf(fourFunctions(), { 1000, 1000, 1000, 1000 });
        const Report rebuilt = reportOf(fourFunctions(), { 333, 333, 750, 334 });
        const DiffTable t = diffTable(base, rebuilt, ModuleKind::Function);
        const DiffRow& south = rowNamed(t, "south (work.c)");
        EXPECT_NEAR(south.time.z, -250 / std::sqrt(1750.0), 1e-9);
        EXPECT_GT(south.share.z, 0);
        EXPECT_TRUE(south.timeSignificant);
        EXPECT_TRUE(south.shareSignificant);
        EXPECT_FALSE(south.significant); // they moved in opposite directions
        EXPECT_LE(south.timeP, 4 * south.time.p); // Holm's adjusted p, at most m p
        EXPECT_EQ(south.movement, "faster, less than the rest");
        EXPECT_EQ(rowNamed(t, "north (work.c)").movement, "faster");
        EXPECT_EQ(t.timeChanged, 4u);
        EXPECT_EQ(t.significant, 3u);
        // The whole program a third faster, every share kept: the time moved like the rest's.
        const DiffTable uniform
            = diffTable(base, reportOf(fourFunctions(), { 667, 667, 667, 667 }), ModuleKind::Function);
        EXPECT_EQ(rowNamed(uniform, "east (work.c)").movement, "faster, like the rest");
    }

    TEST(DiffStatistics, HolmAdjustedPIsRejectedExactlyWhenUnderAlpha)
    {
        // Sorted 0.005, 0.01, 0.03, 0.04: adjusted 4 x 0.005 = 0.02, max(0.02, 3 x 0.01) = 0.03,
        // max(0.03, 2 x 0.03) = 0.06, max(0.06, 0.04) = 0.06.
        const HolmResult h = holm({ 0.01, 0.04, 0.03, 0.005 }, 0.05);
        EXPECT_NEAR(h.adjusted[3], 0.02, 1e-12);
        EXPECT_NEAR(h.adjusted[0], 0.03, 1e-12);
        EXPECT_NEAR(h.adjusted[2], 0.06, 1e-12);
        EXPECT_NEAR(h.adjusted[1], 0.06, 1e-12);
        for (size_t i = 0; i < 4; ++i)
            EXPECT_EQ(h.rejected[i], h.adjusted[i] <= 0.05) << i;
        EXPECT_EQ(holm({ 0.9, 0.8 }, 0.05).adjusted, (std::vector<double> { 1.0, 1.0 }));
    }

    TEST(DiffTable, SameProfileOrAUniformSlowdownFlagsNothing)
    {
        const Report base = reportOf(fourFunctions(), { 1000, 1500, 700, 300 });
        EXPECT_EQ(diffTable(base, base, ModuleKind::Function).significant, 0u);
        // The whole program 30 % slower: every time grew, no share changed.
        const Report slower = reportOf(fourFunctions(), { 1300, 1950, 910, 390 });
        const DiffTable t = diffTable(base, slower, ModuleKind::Function);
        EXPECT_EQ(t.significant, 0u);
        EXPECT_GT(rowNamed(t, "east (work.c)").time.z, 5);
    }

    TEST(DiffTable, SameNamedStaticsOfTwoUnitsStayApart)
    {
        const std::vector<CodeModule> modules { function("helper", "one.c", 0x1000, 0x1100),
            function("helper", "two.c", 0x1100, 0x1200), function("main", "one.c", 0x1200, 0x1300) };
        const DiffTable t
            = diffTable(reportOf(modules, { 100, 300, 50 }), reportOf(modules, { 100, 600, 50 }), ModuleKind::Function);
        ASSERT_EQ(t.rows.size(), 3u);
        EXPECT_EQ(rowNamed(t, "helper (one.c)").base.hits, 100);
        EXPECT_EQ(rowNamed(t, "helper (one.c)").changed.hits, 100);
        EXPECT_EQ(rowNamed(t, "helper (two.c)").changed.hits, 600);
    }

    TEST(DiffTable, UnitsOfAnotherBuildDirectoryMatchAndRenamedFunctionsDoNot)
    {
        const DiffTable units = diffTable(reportOf({ unit("CMakeFiles/prog.dir/work.c.o", 0x1000, 0x1100) }, { 10 }),
            reportOf({ unit("CMakeFiles/prog_slow.dir/work.c.o", 0x1000, 0x1100) }, { 20 }), ModuleKind::Unit);
        ASSERT_EQ(units.rows.size(), 1u);
        EXPECT_EQ(units.rows[0].name, "CMakeFiles/prog_slow.dir/work.c.o");
        EXPECT_EQ(units.rows[0].presence, DiffPresence::Both);
        // A map's "NAME (UNIT)" on one side and DWARF's NAME of unit work.c on the other: one function.
        const DiffTable renamed = diffTable(reportOf({ function("old_name", "work.c", 0x1000, 0x1100),
                                                         function("kept (work.o)", "work.o", 0x1100, 0x1200) },
                                                { 40, 60 }),
            reportOf({ function("new_name", "work.c", 0x1000, 0x1100), function("kept", "work.c", 0x1100, 0x1200) },
                { 40, 60 }),
            ModuleKind::Function);
        ASSERT_EQ(renamed.rows.size(), 3u);
        EXPECT_EQ(rowNamed(renamed, "old_name (work.c)").presence, DiffPresence::OnlyBase);
        EXPECT_EQ(rowNamed(renamed, "new_name (work.c)").presence, DiffPresence::OnlyChanged);
        EXPECT_EQ(rowNamed(renamed, "kept (work.c)").presence, DiffPresence::Both);
    }

    TEST(DiffTable, HitsWhereNoModuleIsAreARow)
    {
        const std::vector<CodeModule> modules { unit("a.o", 0x1000, 0x1100) };
        const Report base = reportOf(modules, { 10 });
        Profile p = profileWith({ { 0x1000, 10 }, { 0x1800, 5 } });
        p.interval = 5000;
        const DiffTable t = diffTable(base, buildReport(std::move(p), modules), ModuleKind::Unit);
        EXPECT_EQ(rowNamed(t, "(no module)").presence, DiffPresence::OnlyChanged);
        EXPECT_EQ(rowNamed(t, "(no module)").changed.hits, 5);
    }

    TEST(TextDiff, DrawsTheModelsNumbers)
    {
        DiffReport d;
        d.base = diffSide(reportOf(fourFunctions(), { 1000, 1000, 1000, 1000 }), "base.ppe");
        d.changed = diffSide(reportOf(fourFunctions(), { 1000, 1000, 2000, 1000 }), "new.ppe");
        d.tables.push_back(diffTable(reportOf(fourFunctions(), { 1000, 1000, 1000, 1000 }),
            reportOf(fourFunctions(), { 1000, 1000, 2000, 1000 }), ModuleKind::Function));
        const std::string text = renderTextDiff(d);
        EXPECT_NE(text.find("COMPARISON BY FUNCTION"), std::string::npos) << text;
        EXPECT_NE(text.find("4 rows compared: time changed in 1, share in 4, both in the same direction in 1"),
            std::string::npos)
            << text;
        EXPECT_NE(text.find("+0.500 +-  0.027   18.26  7.2e-74  slower\n"), std::string::npos) << text;
        EXPECT_NE(text.find("+0.000 +-  0.022    0.00        1  smaller share only\n"), std::string::npos) << text;
        EXPECT_NE(text.find("south (work.c)   25.00   40.00   +15.00"), std::string::npos) << text;
        EXPECT_NE(text.find("family-wise error 5%"), std::string::npos) << text;
    }

} // namespace
} // namespace ppe::formatter
