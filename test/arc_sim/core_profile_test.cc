// The per-core profile of `ppe-arc count --range` (arc-target core_profile.h): what it accepts, and
// a one-line error naming the file and line for what it does not. Here beside the simulated target,
// whose PCT model keeps a configurable range bit, because the profile is what the sim tests feed it.
#include "ppe/arc/aux_registers.h"
#include "ppe/arc/core_profile.h"

#include <gtest/gtest.h>

namespace {

using ppe::arc::parseCoreProfile;

TEST(CoreProfile, ReadsTheCoreTheBitAndTheOptions)
{
    auto p = parseCoreProfile("# made on the bench\n core  hs38x4 \r\nrange-enable pct_config 24 # ours\n"
                              "range-end exclusive\npct-build 0x80503\n",
        "x.profile");
    ASSERT_TRUE(p) << p.error().str();
    EXPECT_EQ(p->core, "hs38x4");
    EXPECT_EQ(p->rangeRegister, ppe::arc::aux::kPctConfig);
    EXPECT_EQ(p->rangeBit, 24u);
    EXPECT_FALSE(p->rangeEndInclusive);
    EXPECT_EQ(p->pctBuild, 0x80503u);
    auto byAddress = parseCoreProfile("core c\nrange-enable 0x255 20", "y");
    ASSERT_TRUE(byAddress) << byAddress.error().str();
    EXPECT_EQ(byAddress->rangeRegister, ppe::arc::aux::kPctControl);
    EXPECT_TRUE(byAddress->rangeEndInclusive);
}

TEST(CoreProfile, ErrorsNameTheFileAndLine)
{
    const std::pair<const char*, const char*> bad[] = {
        { "core a\nrange-enable pct_config 32\n", "p:2: range-enable: bit 32: not 0-31" },
        { "core a\nrange-enable pct_config 99999999999\n", "p:2: range-enable: the bit is a number from 0 to 31" },
        { "core a\nrange-enable pct_config 15\n",
            "p:2: range-enable: bit 15 of pct_config is the condition or the "
            "user/kernel bits" },
        { "core a\nrange-enable pct_control 17\n",
            "p:2: range-enable: bit 17 of pct_control runs, clears or "
            "snapshots the counters" },
        { "core a\nrange-enable pct_index 20\n", "p:2: range-enable: pct_index holds a value, not an enable bit" },
        { "core a\nrange-enable pct_config\n",
            "p:2: expected range-enable REGISTER BIT (e.g. range-enable pct_config 24)" },
        { "\n\ncore a b\n", "p:3: expected core and one value" },
        { "core a\npct-build 0x1g\n", "p:2: pct-build: not a 32-bit number" },
        { "core a\nrange-enable pct_config 24\nrange-enable pct_config 25\n", "p:3: range-enable is given twice" },
        { "range-enable pct_config 24\n", "p: no 'core NAME' line" },
        { "core a\n", "p: no 'range-enable REGISTER BIT' line: range counting stays off" },
        { "", "p: no 'core NAME' line" },
    };
    for (const auto& [text, error] : bad) {
        auto p = parseCoreProfile(text, "p");
        ASSERT_FALSE(p) << text;
        EXPECT_EQ(p.error().str(), error);
    }
    auto nul = parseCoreProfile(std::string_view("core a\nrange\0-enable\n", 21), "p");
    ASSERT_FALSE(nul);
    EXPECT_EQ(nul.error().str(), "p:2: a NUL byte: not a text file");
    auto large = parseCoreProfile(std::string(ppe::arc::kMaxCoreProfileBytes + 1, '#'), "p");
    ASSERT_FALSE(large);
    EXPECT_EQ(large.error().str(), "p: larger than 65536 bytes: not a core profile");
}

} // namespace
