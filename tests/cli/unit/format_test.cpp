// How numbers read in tables, reports and files (render/format.hpp).
#include "render/format.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace duet::cli {
namespace {

TEST(Format, ExactIsShortestAndReadsBack)
{
    EXPECT_EQ(format::exact(0.1), "0.1");
    EXPECT_EQ(format::exact(1e-7), "1e-07");
    EXPECT_EQ(format::exact(100000), "100000");
    EXPECT_EQ(format::exact(-3), "-3");
    for (const double value : {0.1, 1.0 / 3, 2.718281828459045, 1e-300, 123456.789}) {
        EXPECT_EQ(std::stod(format::exact(value)), value) << value;
    }
}

TEST(Format, ExactNamesValuesThatAreNotFinite)
{
    EXPECT_EQ(format::exact(std::numeric_limits<double>::quiet_NaN()), "nan");
    EXPECT_EQ(format::exact(INFINITY), "inf");
    EXPECT_EQ(format::exact(-INFINITY), "-inf");
}

TEST(Format, MillisecondsKeepAboutFourDigits)
{
    EXPECT_EQ(format::milliseconds(0), "0");
    EXPECT_EQ(format::milliseconds(0.0123), "0.012");
    EXPECT_EQ(format::milliseconds(0.001234), "0.0012");
    EXPECT_EQ(format::milliseconds(1.2345), "1.234");
    EXPECT_EQ(format::milliseconds(12.345), "12.35");
    EXPECT_EQ(format::milliseconds(123.45), "123.5");
    EXPECT_EQ(format::milliseconds(12345.6), "12346");
}

TEST(Format, MillisecondsWithTheirSpreadWhenThereIsOne)
{
    const std::vector<double> one{2.0}, steady{2.0, 2.0, 2.0};
    EXPECT_EQ(format::milliseconds(2.0, workload::summarize(one)), "2.000");
    EXPECT_EQ(format::milliseconds(2.0, workload::summarize(steady)), "2.000 ±0.0%");
}

TEST(Format, Rates)
{
    EXPECT_EQ(format::rate(1.234), "1.23");
    EXPECT_EQ(format::rate(45.67), "45.7");
    EXPECT_EQ(format::rate(2900.4), "2900");
}

TEST(Format, Figures)
{
    EXPECT_EQ(format::figure(8192), "8192");
    EXPECT_EQ(format::figure(0.99912), "0.9991");
    EXPECT_EQ(format::figure(52.3649), "52.36");
    EXPECT_EQ(format::figure(12345.6), "12346");
}

TEST(Format, RatiosAndPercentages)
{
    EXPECT_EQ(format::ratio(1.034), "1.03x");
    EXPECT_EQ(format::ratio(NAN), "-");
    EXPECT_EQ(format::percent(0.123), "12.3%");
    EXPECT_EQ(format::percent(0), "0.0%");
}

TEST(Format, CountsArePluralExceptForOne)
{
    EXPECT_EQ(format::count(0, "run"), "0 runs");
    EXPECT_EQ(format::count(1, "run"), "1 run");
    EXPECT_EQ(format::count(3, "problem"), "3 problems");
}

TEST(Format, BytesInBinaryUnits)
{
    EXPECT_EQ(format::bytes(512), "512 B");
    EXPECT_EQ(format::bytes(48 * 1024), "48 KiB");
    EXPECT_EQ(format::bytes(1536), "1.5 KiB");
    EXPECT_EQ(format::bytes(std::uint64_t{80} << 30), "80 GiB");
}

TEST(Format, CompactAxisLabels)
{
    EXPECT_EQ(format::compact(16384), "16Ki");
    EXPECT_EQ(format::compact(1 << 20), "1Mi");
    EXPECT_EQ(format::compact(1000), "1000");
    EXPECT_EQ(format::compact(0.25), "0.25");
    EXPECT_EQ(format::compact(1.5e6), "1.5e+06");
}

} // namespace
} // namespace duet::cli
