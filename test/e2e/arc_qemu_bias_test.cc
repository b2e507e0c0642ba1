// QEMU's stub distorts function shares (issue 36): it flushes its translated code at every stop,
// and the time to translate the working set again counts as running, in favour of code with many
// distinct blocks. arc_shapes.c has two functions of different shape (branchy(): a 64-way switch
// in a loop; tight(): one tight loop). The reference is not the sampler's: timing variants of the
// unsampled program under qemu-arc with one function left out, as a user would check it (the CPU
// time of each, the share of branchy() = T(branchy) / (T(branchy) + T(tight))). At a 10 ms interval
// ppe-arc's share must lie within 3 of its errors plus 10 points of the reference (the timing
// variants moved by 5 points between runs on this shared machine; 10 ms is itself a little biased:
// 47-50 % against 40-50 %); at 1 ms it is far off (79-96 % against 40-50 %, measured here) and
// ppe-arc must have said so in a warning.
#include "local_server.h"
#include "run_program.h"
#include "temp_dir.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <regex>
#include <sstream>

using namespace ppe::testing;

namespace {

struct Share {
    double percent = 0, error = 0;
    bool found = false;
};

// branchy's row of ppeout --by function (DWARF): "   1 - branchy   85.50 +-  0.23 ...".
Share branchyShare(const std::string& ppe)
{
    RunResult r = runProgram({ PPEOUT, "--by", "function", ppe, "-" });
    std::smatch m;
    static const std::regex row(R"(\n *\d+ - branchy +(\d+\.\d+) \+- +(\d+\.\d+))");
    if (!std::regex_search(r.out, m, row))
        return {};
    return { std::stod(m[1]), std::stod(m[2]), true };
}

// CPU seconds of the unsampled program under qemu-arc in each mode, the least of three runs each,
// the one the other work on the machine disturbed least. The modes take turns, so that a change of
// the machine's load or clock during the measurement moves all three alike: measured one mode after
// another, the official CI once read both = 2.68 s against branchy + tight = 3.39 s.
struct Variants {
    double branchy = 1e9, tight = 1e9, both = 1e9;
};

Variants timeVariants(const std::string& n)
{
    Variants v;
    for (int round = 0; round < 3; ++round)
        for (auto [mode, least] : { std::pair { "branchy", &v.branchy }, { "tight", &v.tight }, { "both", &v.both } }) {
            RunResult r = runProgram({ PPE_QEMU_ARC, "-L", "/usr/arc-linux-gnu", PPE_SHAPES_ARC, mode, n });
            EXPECT_EQ(r.status, 0) << r.err;
            *least = std::min(*least, r.cpuSeconds);
        }
    return v;
}

struct Sampled {
    Share share;
    std::string err;
};

Sampled sampleAt(const std::string& interval, const std::string& n, const std::string& out)
{
    const std::string port = std::to_string(freePort());
    RunResult r = runProgram({ PPE_ARC, "sample", "--remote", "127.0.0.1:" + port, "--elf", PPE_SHAPES_ARC, "-o", out,
        "--interval", interval, "--spawn",
        std::string(PPE_QEMU_ARC) + " -L /usr/arc-linux-gnu -g " + port + " " + PPE_SHAPES_ARC + " both " + n });
    EXPECT_EQ(r.status, 0) << r.err;
    return { branchyShare(out), r.err };
}

} // namespace

TEST(ArcQemuBias, SharesAgainstTimingVariants)
{
    if (!executable(PPE_QEMU_ARC) || !executable(PPE_SHAPES_ARC))
        GTEST_SKIP() << "qemu-arc (test/README.md: -DPPE_QEMU_ARC, QEMU_ARC, PATH) or arc-linux-gnu-gcc-12 is absent";
    const auto [branchy, tight, both] = timeVariants("20000000");
    ASSERT_GT(branchy, 0.1);
    ASSERT_GT(tight, 0.1);
    const double reference = 100 * branchy / (branchy + tight);
    std::cout << "reference (timing variants): branchy " << reference << " % (" << branchy << " s, tight " << tight
              << " s, both " << both << " s)\n";
    EXPECT_NEAR(both, branchy + tight, 0.25 * both) << "the variants do not add up: no reference";
    TempDir dir;
    const Sampled at10 = sampleAt("10", "60000000", dir.file("s10.ppe"));
    ASSERT_TRUE(at10.share.found);
    std::cout << "at 10 ms: branchy " << at10.share.percent << " +- " << at10.share.error << " %\n";
    EXPECT_LE(std::fabs(at10.share.percent - reference), 3 * at10.share.error + 10);
    const Sampled at1 = sampleAt("1", "20000000", dir.file("s1.ppe"));
    ASSERT_TRUE(at1.share.found);
    std::cout << "at 1 ms: branchy " << at1.share.percent << " +- " << at1.share.error << " %\n" << at1.err;
    const bool close = std::fabs(at1.share.percent - reference) <= 3 * at1.share.error + 10;
    const bool warned = at1.err.find("is QEMU's user-mode stub") != std::string::npos
        && at1.err.find("below 10 ms") != std::string::npos;
    EXPECT_TRUE(close || warned) << "shares off by " << at1.share.percent - reference << " points, and no warning";
    EXPECT_TRUE(warned) << "ppe-arc does not warn about QEMU";
    EXPECT_TRUE(std::regex_search(at1.err, std::regex(R"(the server \(pid \d+\) used [0-9.]+ s of CPU)")));
}
