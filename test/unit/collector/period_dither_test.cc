// The perf-ring events' varying period (period_dither.h): rates from 1 + 1/16 to 1 + 1/2 of the
// asked one, spread evenly over that range, never at the asked one, no two starts alike; and the
// thinning that brings every stretch back to the asked rate.
#include "period_dither.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

namespace ppe {
namespace {

    constexpr uint64_t kInterval = 500'000; // 2 kHz

    double rateOf(uint64_t periodNs) { return double(kInterval) / double(periodNs); }

    TEST(PeriodDither, RatesStayWithinAHalfAboveTheAskedOneButNeverAtIt)
    {
        DitherState state = seedDither(0x2545F491u, 0);
        std::vector<double> rates;
        for (int i = 0; i < 10000; ++i)
            rates.push_back(rateOf(periodWithExcess(kInterval, nextDitheredExcess(state))));
        const auto [lowest, highest] = std::minmax_element(rates.begin(), rates.end());
        EXPECT_GE(*lowest, 1.0624);
        EXPECT_LT(*lowest, 1.07) << "the whole range is used";
        EXPECT_LE(*highest, 1.501);
        EXPECT_GT(*highest, 1.49);
        int tenths[10] = {}; // of the distance from the asked rate, 1/16 to 1/2
        for (double rate : rates)
            ++tenths[std::min(9, int((rate - 1 - 0.0625) / 0.04375))];
        for (int count : tenths)
            EXPECT_NEAR(count, 1000, 40);
    }

    TEST(PeriodDither, TheAskedRateIsTheAskedPeriod)
    {
        EXPECT_EQ(periodWithExcess(kInterval, 0), kInterval);
        EXPECT_EQ(periodWithExcess(kInterval, kRateScale / 2), kInterval * 2 / 3);
    }

    // Each stretch's kept samples are its samples over 1 + d: the asked rate, within the binomial
    // error of that stretch alone, whatever its length.
    TEST(PeriodDither, ThinningBringsEveryRateBackToTheAskedOne)
    {
        uint64_t random = randomSeed(1, 2);
        for (uint32_t excess : { 0u, 64u, 200u, 511u }) {
            const int taken = 100'000;
            int kept = 0;
            for (int i = 0; i < taken; ++i)
                kept += keepVariedSample(excess, random) ? 1 : 0;
            const double p = double(kRateScale) / double(kRateScale + excess);
            const double error = std::sqrt(taken * p * (1 - p));
            EXPECT_NEAR(kept, taken * p, 3 * error + 1e-9) << "excess " << excess;
        }
    }

    // An inherited event's sample carries its period: its excess is the one it was created with.
    TEST(PeriodDither, TheExcessOfAPeriodIsTheRateItWasMadeAt)
    {
        for (uint32_t excess : { 64u, 100u, 333u, 511u })
            EXPECT_EQ(excessOfPeriod(kInterval, periodWithExcess(kInterval, excess)), excess);
        EXPECT_EQ(excessOfPeriod(kInterval, kInterval), 0u);
        EXPECT_EQ(excessOfPeriod(kInterval, 2 * kInterval), 0u) << "a longer period is never thinned";
        EXPECT_EQ(excessOfPeriod(kInterval, 0), 0u);
        EXPECT_EQ(excessOfPeriod(kInterval, 1), kRateScale - 1);
    }

    TEST(PeriodDither, EventsAndOpeningsStartAtDifferentRates)
    {
        std::set<uint32_t> firsts;
        for (uint32_t random : { 0x2545F491u, 0x9E3779B9u, 0x6C078965u }) // as getrandom gives
            for (int index = 0; index < 4; ++index) {
                DitherState state = seedDither(random, index);
                firsts.insert(nextDitheredExcess(state));
            }
        EXPECT_EQ(firsts.size(), 12u);
    }

} // namespace
} // namespace ppe
