// PPE's rule for environment values: a positive decimal integer, nothing else; any error leaves the
// output untouched so the caller keeps its default.
#include "ppe/core/env_value.h"

#include <gtest/gtest.h>

#include <cstring>
#include <set>
#include <string>

namespace ppe {

// Names in failure messages instead of the enum's bytes.
static void PrintTo(ValueError error, std::ostream* os) { *os << describe(error); }

namespace {

    constexpr uint64_t kUntouched = 0xabad1dea;

    struct Parsed {
        ValueError error;
        uint64_t value;
    };

    Parsed parse(const char* text, uint64_t minimum = 1, uint64_t maximum = 1000)
    {
        uint64_t value = kUntouched;
        const ValueError error = parseDecimal(text, minimum, maximum, &value);
        return { error, value };
    }

    void expectRejected(const char* text, ValueError expected, uint64_t minimum = 1, uint64_t maximum = 1000)
    {
        SCOPED_TRACE(std::string("text \"") + text + "\"");
        const Parsed parsed = parse(text, minimum, maximum);
        EXPECT_EQ(parsed.error, expected) << describe(parsed.error);
        EXPECT_EQ(parsed.value, kUntouched);
    }

    TEST(ParseDecimal, AcceptsPlainDigits)
    {
        EXPECT_EQ(parse("5").error, ValueError::None);
        EXPECT_EQ(parse("5").value, 5u);
        EXPECT_EQ(parse("1000").value, 1000u);
        EXPECT_EQ(parse("1").value, 1u);
    }

    TEST(ParseDecimal, LeadingZerosAreDecimalNotOctal)
    {
        const Parsed parsed = parse("00012");
        EXPECT_EQ(parsed.error, ValueError::None);
        EXPECT_EQ(parsed.value, 12u);
        EXPECT_EQ(parse("010").value, 10u);
    }

    TEST(ParseDecimal, EmptyValue)
    {
        expectRejected("", ValueError::Empty);
        uint64_t value = kUntouched;
        EXPECT_EQ(parseDecimal(nullptr, 1, 10, &value), ValueError::Empty);
        EXPECT_EQ(value, kUntouched);
    }

    TEST(ParseDecimal, OnlyBlanksIsEmpty)
    {
        expectRejected(" ", ValueError::Empty);
        expectRejected("   ", ValueError::Empty);
    }

    TEST(ParseDecimal, EverythingButDigitsIsNotDecimal)
    {
        for (const char* text :
            { " 5", "5 ", "+5", "-5", "0x10", "1e3", "5k", "5.0", "5,000", "1_000", "\t5", "5\n", "five", "٥" }) {
            expectRejected(text, ValueError::NotDecimal);
        }
    }

    TEST(ParseDecimal, ZeroWhereAPositiveValueIsRequired)
    {
        expectRejected("0", ValueError::Zero);
        expectRejected("000", ValueError::Zero);
    }

    TEST(ParseDecimal, ZeroAllowedWhenMinimumIsZero)
    {
        const Parsed parsed = parse("0", 0, 1);
        EXPECT_EQ(parsed.error, ValueError::None);
        EXPECT_EQ(parsed.value, 0u);
    }

    TEST(ParseDecimal, BelowTheMinimum)
    {
        expectRejected("99", ValueError::TooSmall, 100, 1000);
        expectRejected("1", ValueError::TooSmall, 100, 1000);
        EXPECT_EQ(parse("100", 100, 1000).value, 100u);
    }

    TEST(ParseDecimal, MaximumIsInclusive)
    {
        EXPECT_EQ(parse("1000", 1, 1000).value, 1000u);
        expectRejected("1001", ValueError::TooLarge, 1, 1000);
    }

    TEST(ParseDecimal, Uint64Boundaries)
    {
        const Parsed largest = parse("18446744073709551615", 1, UINT64_MAX);
        EXPECT_EQ(largest.error, ValueError::None);
        EXPECT_EQ(largest.value, UINT64_MAX);
        expectRejected("18446744073709551616", ValueError::TooLarge, 1, UINT64_MAX);
        expectRejected("99999999999999999999999999", ValueError::TooLarge, 1, UINT64_MAX);
    }

    TEST(ParseDecimal, OverflowThatWrapsToASmallNumberIsStillTooLarge)
    {
        // 2^64 + 5 would wrap to 5, inside [1, 1000].
        expectRejected("18446744073709551621", ValueError::TooLarge);
    }

    TEST(ParseDecimal, ALetterAfterAnOverflowIsNotDecimal)
    {
        expectRejected("99999999999999999999x", ValueError::NotDecimal);
    }

    TEST(DescribeValueError, TextsAreShortDistinctAndLowerCase)
    {
        std::set<std::string> seen;
        for (ValueError error : { ValueError::Empty, ValueError::NotDecimal, ValueError::Zero, ValueError::TooSmall,
                 ValueError::TooLarge, ValueError::None }) {
            const char* text = describe(error);
            ASSERT_NE(text, nullptr);
            SCOPED_TRACE(text);
            EXPECT_GT(std::strlen(text), 0u);
            EXPECT_TRUE(text[0] >= 'a' && text[0] <= 'z');
            EXPECT_NE(text[std::strlen(text) - 1], '.');
            EXPECT_TRUE(seen.insert(text).second) << "duplicate description";
        }
        EXPECT_STREQ(describe(ValueError::NotDecimal), "not a positive decimal integer");
    }

} // namespace
} // namespace ppe
