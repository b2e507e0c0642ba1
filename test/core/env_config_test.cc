// PPE's rules for its settings: positive decimal integers; any error keeps the default and says so
// once.
#include "config.h"
#include "ppe/core/env_value.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

namespace ppe {
namespace {

TEST(ParseDecimal, AcceptsPlainDecimals)
{
    uint64_t v = 0;
    EXPECT_EQ(parseDecimal("5000", 1, 100000, &v), ValueError::None);
    EXPECT_EQ(v, 5000u);
    EXPECT_EQ(parseDecimal("00012", 1, 100, &v), ValueError::None);
    EXPECT_EQ(v, 12u);
    EXPECT_EQ(parseDecimal("0", 0, 1, &v), ValueError::None);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(parseDecimal("18446744073709551615", 1, UINT64_MAX, &v), ValueError::None);
    EXPECT_EQ(v, UINT64_MAX);
}

struct Malformed {
    const char* text;
    ValueError error;
};

TEST(ParseDecimal, EveryMalformedValueIsRejectedAndLeavesTheValue)
{
    const Malformed cases[] = { { "", ValueError::Empty }, { " 5", ValueError::NotDecimal },
        { "5 ", ValueError::NotDecimal }, { "+5", ValueError::NotDecimal }, { "-5", ValueError::NotDecimal },
        { "0x10", ValueError::NotDecimal }, { "1e3", ValueError::NotDecimal }, { "5k", ValueError::NotDecimal },
        { "5.0", ValueError::NotDecimal }, { "\xff", ValueError::NotDecimal }, { "0", ValueError::Zero },
        { "1000001", ValueError::TooLarge }, { "18446744073709551616", ValueError::TooLarge },
        { "99999999999999999999999", ValueError::TooLarge }, { "50", ValueError::TooSmall } };
    for (const Malformed& c : cases) {
        uint64_t v = 777;
        EXPECT_EQ(parseDecimal(c.text, c.error == ValueError::TooSmall ? 100 : 1, 1'000'000, &v), c.error) << c.text;
        EXPECT_EQ(v, 777u) << c.text;
    }
    EXPECT_EQ(parseDecimal(nullptr, 1, 10, nullptr), ValueError::Empty);
}

TEST(ParseDecimal, DescriptionsAreDistinct)
{
    const ValueError all[] = { ValueError::Empty, ValueError::NotDecimal, ValueError::Zero, ValueError::TooSmall,
        ValueError::TooLarge };
    std::vector<std::string> seen;
    for (ValueError e : all) {
        const std::string text = describe(e);
        EXPECT_FALSE(text.empty());
        for (const std::string& other : seen)
            EXPECT_NE(text, other);
        seen.push_back(text);
    }
}

// A fake environment for readConfig.
std::map<std::string, std::string> g_env;
std::vector<std::string> g_warnings;

const char* lookup(const char* name)
{
    auto it = g_env.find(name);
    return it == g_env.end() ? nullptr : it->second.c_str();
}

void warn(const char* name, const char* value, const char* problem, const char* kept)
{
    g_warnings.push_back(std::string(name) + "=" + value + ": " + problem + "; " + kept);
}

Config configFor(std::map<std::string, std::string> env)
{
    g_env = std::move(env);
    g_warnings.clear();
    return readConfig(lookup, warn);
}

TEST(ReadConfig, WithoutPpeOnNothingIsReadOrSaid)
{
    const Config c = configFor({ { "PPE_MEM", "junk" }, { "PPE_INT", "-1" } });
    EXPECT_FALSE(c.enabled);
    EXPECT_TRUE(g_warnings.empty());
}

TEST(ReadConfig, AnyValueOfPpeOnEnables)
{
    EXPECT_TRUE(configFor({ { "PPE_ON", "" } }).enabled);
    EXPECT_TRUE(configFor({ { "PPE_ON", "0" } }).enabled);
    const Config c = configFor({ { "PPE_ON", "yes" } });
    EXPECT_EQ(c.pages, 2048u);
    EXPECT_EQ(c.interval, 5000u);
    EXPECT_EQ(c.mode, SampleMode::Real);
    EXPECT_EQ(c.timer, TimerChoice::Auto);
    EXPECT_EQ(c.output, nullptr);
    EXPECT_TRUE(g_warnings.empty());
}

TEST(ReadConfig, GoodValues)
{
    const Config c = configFor({ { "PPE_ON", "1" }, { "PPE_MEM", "1024" }, { "PPE_INT", "100000" },
        { "PPE_MODE", "1" }, { "PPE_OUT", "TEST.PPE" }, { "PPE_TIMER", "itimer" } });
    EXPECT_EQ(c.pages, 1024u);
    EXPECT_EQ(c.interval, 100000u);
    EXPECT_EQ(c.mode, SampleMode::Cpu);
    EXPECT_STREQ(c.output, "TEST.PPE");
    EXPECT_EQ(c.timer, TimerChoice::Itimer);
    EXPECT_TRUE(g_warnings.empty());
}

TEST(ReadConfig, EachBadValueKeepsItsDefaultWithOneWarning)
{
    const char* const bad[] = { "", "abc", "-3", "0", "1.5", "99999999999999999999" };
    for (const char* value : bad) {
        for (const char* name : { "PPE_MEM", "PPE_INT", "PPE_MODE" }) {
            const Config c = configFor({ { "PPE_ON", "1" }, { name, value } });
            const bool modeZero = std::string(name) == "PPE_MODE" && std::string(value) == "0";
            EXPECT_EQ(g_warnings.size(), modeZero ? 0u : 1u) << name << "=" << value;
            if (!g_warnings.empty()) {
                EXPECT_EQ(g_warnings[0].rfind(std::string(name) + "=", 0), 0u) << g_warnings[0];
            }
            EXPECT_EQ(c.pages, 2048u);
            EXPECT_EQ(c.interval, 5000u);
            EXPECT_EQ(c.mode, SampleMode::Real);
        }
    }
    configFor({ { "PPE_ON", "1" }, { "PPE_MODE", "2" } });
    EXPECT_EQ(g_warnings.size(), 1u) << "mode is 0 or 1";
    configFor({ { "PPE_ON", "1" }, { "PPE_INT", "99" } });
    EXPECT_EQ(g_warnings.size(), 1u) << "interval below 10 us";
    configFor({ { "PPE_ON", "1" }, { "PPE_MEM", "2097153" } });
    EXPECT_EQ(g_warnings.size(), 1u) << "budget above 1 GiB";
    configFor({ { "PPE_ON", "1" }, { "PPE_TIMER", "fast" } });
    EXPECT_EQ(g_warnings.size(), 1u);
    const Config empty = configFor({ { "PPE_ON", "1" }, { "PPE_OUT", "" } });
    EXPECT_EQ(empty.output, nullptr);
    EXPECT_EQ(g_warnings.size(), 1u);
}

} // namespace
} // namespace ppe
