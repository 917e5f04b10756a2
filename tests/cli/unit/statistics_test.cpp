// The statistics bench takes of a point's repeats: the median a table shows, and the spread.
#include "model/statistics.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace duet::cli {
namespace {

TEST(Statistics, MedianOfOddAndEvenCounts)
{
    EXPECT_DOUBLE_EQ(median(std::vector<double>{3, 1, 2}), 2);
    EXPECT_DOUBLE_EQ(median(std::vector<double>{4, 1, 3, 2}), 2.5);
    EXPECT_DOUBLE_EQ(median(std::vector<double>{5}), 5);
}

TEST(Statistics, MedianOfNothingIsZero)
{
    EXPECT_EQ(median(std::vector<double>{}), 0);
}

TEST(Statistics, RelativeRangeIsMaxLessMinOverTheMedian)
{
    EXPECT_DOUBLE_EQ(*relative_range(std::vector<double>{1, 2, 3}), 1.0);
    EXPECT_DOUBLE_EQ(*relative_range(std::vector<double>{10, 10, 10}), 0.0);
    EXPECT_DOUBLE_EQ(*relative_range(std::vector<double>{9, 10, 12}), 0.3);
}

TEST(Statistics, NoRelativeRangeWithoutAPositiveMedian)
{
    EXPECT_FALSE(relative_range(std::vector<double>{}));
    EXPECT_FALSE(relative_range(std::vector<double>{0, 0, 0}));
}

} // namespace
} // namespace duet::cli
