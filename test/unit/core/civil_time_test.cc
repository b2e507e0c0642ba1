// UTC calendar arithmetic without the C library: known dates, and agreement with gmtime_r and
// with its own inverse over a wide range.
#include "ppe/core/civil_time.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <string>

namespace ppe {
namespace {

    std::string iso(const CivilTime& t)
    {
        char text[64];
        std::snprintf(text, sizeof(text), "%04lld-%02u-%02uT%02u:%02u:%02u", static_cast<long long>(t.year), t.month,
            t.day, t.hour, t.minute, t.second);
        return text;
    }

    std::string isoOf(int64_t seconds) { return iso(civilFromUnix(seconds)); }

    TEST(CivilTime, KnownDates)
    {
        EXPECT_EQ(isoOf(0), "1970-01-01T00:00:00");
        EXPECT_EQ(isoOf(951782400), "2000-02-29T00:00:00");
        EXPECT_EQ(isoOf(951868799), "2000-02-29T23:59:59");
        EXPECT_EQ(isoOf(951868800), "2000-03-01T00:00:00");
        EXPECT_EQ(isoOf(4102444799), "2099-12-31T23:59:59");
        EXPECT_EQ(isoOf(4102444800), "2100-01-01T00:00:00");
        EXPECT_EQ(isoOf(4107542400), "2100-03-01T00:00:00"); // 2100 is not a leap year
        EXPECT_EQ(isoOf(2147483647), "2038-01-19T03:14:07");
        EXPECT_EQ(isoOf(1073250060), "2004-01-04T21:01:00");
    }

    TEST(CivilTime, BeforeTheEpoch)
    {
        EXPECT_EQ(isoOf(-1), "1969-12-31T23:59:59");
        EXPECT_EQ(isoOf(-86400), "1969-12-31T00:00:00");
        EXPECT_EQ(isoOf(-86401), "1969-12-30T23:59:59");
        EXPECT_EQ(isoOf(-31536000), "1969-01-01T00:00:00");
        EXPECT_EQ(isoOf(-2208988800), "1900-01-01T00:00:00");
        EXPECT_EQ(isoOf(-62135596800), "0001-01-01T00:00:00");
    }

    TEST(CivilTime, InverseOfKnownDates)
    {
        EXPECT_EQ(unixFromCivil({ 1970, 1, 1, 0, 0, 0 }), 0);
        EXPECT_EQ(unixFromCivil({ 2000, 2, 29, 0, 0, 0 }), 951782400);
        EXPECT_EQ(unixFromCivil({ 2099, 12, 31, 23, 59, 59 }), 4102444799);
        EXPECT_EQ(unixFromCivil({ 1969, 12, 31, 23, 59, 59 }), -1);
        EXPECT_EQ(unixFromCivil({ 1900, 1, 1, 0, 0, 0 }), -2208988800);
    }

    void expectSameAsGmtime(int64_t seconds)
    {
        const time_t t = time_t(seconds);
        struct tm expected { };
        ASSERT_NE(gmtime_r(&t, &expected), nullptr) << seconds;
        const CivilTime c = civilFromUnix(seconds);
        ASSERT_EQ(c.year, int64_t(expected.tm_year) + 1900) << seconds;
        ASSERT_EQ(c.month, unsigned(expected.tm_mon + 1)) << seconds;
        ASSERT_EQ(c.day, unsigned(expected.tm_mday)) << seconds;
        ASSERT_EQ(c.hour, unsigned(expected.tm_hour)) << seconds;
        ASSERT_EQ(c.minute, unsigned(expected.tm_min)) << seconds;
        ASSERT_EQ(c.second, unsigned(expected.tm_sec)) << seconds;
        ASSERT_EQ(unixFromCivil(c), seconds);
    }

    TEST(CivilTime, AgreesWithGmtimeFromYear1To9999)
    {
        // An odd step that is not a multiple of a day, so times of day and dates both vary.
        constexpr int64_t kFirst = -62135596800; // 0001-01-01
        constexpr int64_t kLast = 253402300799; // 9999-12-31T23:59:59
        int64_t checked = 0;
        for (int64_t s = kFirst; s <= kLast; s += 7777777) {
            expectSameAsGmtime(s);
            ++checked;
        }
        EXPECT_GT(checked, 40000);
        expectSameAsGmtime(kLast);
    }

    TEST(CivilTime, EveryDayAroundLeapDaysAndCenturies)
    {
        for (int64_t base : { int64_t(951782400), int64_t(4107542400), int64_t(-2203891200), int64_t(0) }) {
            for (int64_t day = -400; day <= 400; ++day)
                expectSameAsGmtime(base + day * 86400 + 86399);
        }
    }

} // namespace
} // namespace ppe
