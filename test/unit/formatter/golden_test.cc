// The report layout for a fixed profile and map (test/data/report/README.md says how they were
// made): any change to what ppeout prints shows up here.
#include "run_program.h"

#include <gtest/gtest.h>

namespace ppe::testing {
namespace {

    const std::string kData = PPE_REPORT_DATA;

    TEST(GoldenReport, KtestWithGoldMap)
    {
        const RunResult r = runProgram({ PPEOUT, kData + "/ktest.map", kData + "/ktest.ppe", "-" });
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, readFile(kData + "/ktest.ppl"));
        EXPECT_EQ(r.err, "");
    }

    // The same with the listing of that build: PPE's third part, program text with hits per line.
    // Run from the fixture directory with relative names, as the README's command was.
    TEST(GoldenReport, KtestWithListing)
    {
        const RunResult r
            = runProgram({ PPEOUT, "ktest.map", "ktest.ppe", "-", "ktest.lis", "--source-dir", "src" }, {}, kData);
        ASSERT_EQ(r.status, 0) << r.err;
        EXPECT_EQ(r.out, readFile(kData + "/ktest-lines.ppl"));
        EXPECT_EQ(r.err, "");
    }

} // namespace
} // namespace ppe::testing
