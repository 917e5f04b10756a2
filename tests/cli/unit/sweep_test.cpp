// --sweep's ranges, the count of points checked before any is built, and the combinations in
// the order bench measures them.
#include "model/sweep.hpp"
#include "model/usage_error.hpp"
#include <checks.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>

namespace duet::cli {
namespace {

using test::error_text;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SweepRange, AValueThatIsNoRangeStandsAsItIs)
{
    EXPECT_THAT(expand_range("n", "1000"), ElementsAre("1000"));
    EXPECT_THAT(expand_range("schedule", "overlapped"), ElementsAre("overlapped"));
}

TEST(SweepRange, StepOneByDefault)
{
    EXPECT_THAT(expand_range("n", "3..6"), ElementsAre("3", "4", "5", "6"));
    EXPECT_THAT(expand_range("n", "7..7"), ElementsAre("7"));
}

TEST(SweepRange, ArithmeticStepsStopAtOrBeforeTheEnd)
{
    EXPECT_THAT(expand_range("block", "32..256+32"), ElementsAre("32", "64", "96", "128", "160", "192", "224", "256"));
    EXPECT_THAT(expand_range("block", "1..10+4"), ElementsAre("1", "5", "9"));
}

TEST(SweepRange, GeometricStepsMultiply)
{
    EXPECT_THAT(expand_range("n", "1024..16384*4"), ElementsAre("1024", "4096", "16384"));
    EXPECT_THAT(expand_range("n", "1..100*10"), ElementsAre("1", "10", "100"));
}

TEST(SweepRange, ReachesTheLargestWholeNumberWithoutOverflow)
{
    const std::string top = std::to_string(INT64_MAX);
    EXPECT_THAT(expand_range("n", top + ".." + top), ElementsAre(top));
    EXPECT_EQ(expand_range("n", "4611686018427387904.." + top + "*2").size(), 1u);
}

TEST(SweepRange, WhatIsNoRangeIsRefusedNamingTheParameter)
{
    for (const char* bad : {"10..1", "1..10+0", "1..10*1", "0..10*2", "a..10", "1..b", "1..10*", "1.5..3"}) {
        EXPECT_THAT(error_text<UsageError>([&] { expand_range("n", bad); }),
                    HasSubstr("--sweep n: '" + std::string(bad) + "'"))
            << bad;
    }
}

TEST(SweepRange, MoreThanTheCapIsRefused)
{
    EXPECT_EQ(expand_range("n", "1..1000").size(), max_sweep_values);
    EXPECT_THAT(error_text<UsageError>([] { expand_range("n", "1..1001"); }), HasSubstr("more than 1000 values"));
}

TEST(SweepPoints, CountsEveryFactor)
{
    const std::vector<Sweep> sweeps{{"n", {"1", "2", "3"}}, {"block", {"64", "128"}}};
    EXPECT_EQ(count_points(sweeps, 2, 3), 36u);
    EXPECT_EQ(count_points({}, 1, 1), 1u);
}

TEST(SweepPoints, OverTheCapIsRefusedWithTheFactors)
{
    const std::vector<std::string> thousand(1000, "1");
    const std::vector<Sweep> sweeps{{"m", thousand}, {"n", thousand}};
    const auto message = error_text<UsageError>([&] { count_points(sweeps, 1, 1); });
    EXPECT_THAT(message, HasSubstr("1000 m values x 1000 n values x 1 variant x 1 device = 1000000 points"));
    EXPECT_THAT(message, HasSubstr(std::to_string(max_bench_points)));
}

TEST(SweepPoints, PastSixtyFourBitsIsRefusedToo)
{
    const std::vector<std::string> thousand(1000, "1");
    const std::vector<Sweep> sweeps(7, Sweep{"n", thousand});
    EXPECT_THAT(error_text<UsageError>([&] { count_points(sweeps, 1, 1); }),
                HasSubstr("more than 18446744073709551615"));
}

TEST(SweepCombinations, TheLastSweepVariesFastestOverTheFixedValues)
{
    const std::vector<Sweep> sweeps{{"n", {"1", "2"}}, {"block", {"64", "128"}}};
    const auto all = combinations(sweeps, {{"seed", "7"}});
    ASSERT_EQ(all.size(), 4u);
    const std::vector<std::pair<std::string, std::string>> expected{
        {"1", "64"}, {"1", "128"}, {"2", "64"}, {"2", "128"}};
    for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(all[i].at("n"), expected[i].first) << i;
        EXPECT_EQ(all[i].at("block"), expected[i].second) << i;
        EXPECT_EQ(all[i].at("seed"), "7") << i;
    }
}

TEST(SweepCombinations, NoSweepIsTheFixedValuesAlone)
{
    const auto all = combinations({}, {{"n", "10"}});
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].at("n"), "10");
}

} // namespace
} // namespace duet::cli
