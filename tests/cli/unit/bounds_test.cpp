// An integer parameter whose bounds, held as doubles, are not whole: its range is the integers
// inside them, as listed, as a bad value's message says, and as the values it accepts.
#include "render/describe.hpp"

#include <duet/duet.hpp>
#include <duet/workload.hpp>

#include <gtest/gtest.h>

#include <string>

namespace duet::cli {
namespace {

WorkloadParameter between(double min, double max)
{
    WorkloadParameter parameter{.name = "k", .type = WorkloadParameter::Type::integer, .default_value = "1"};
    parameter.min = min;
    parameter.max = max;
    return parameter;
}

TEST(IntegerBounds, AMinimumRoundsUpAndAMaximumDown)
{
    EXPECT_EQ(integer_min(between(0.5, 8.5)), 1);
    EXPECT_EQ(integer_max(between(0.5, 8.5)), 8);
    EXPECT_EQ(integer_min(between(-2.5, -0.5)), -2);
    EXPECT_EQ(integer_max(between(-2.5, -0.5)), -1);
    EXPECT_EQ(integer_min(between(3, 7)), 3) << "a whole bound is itself";
    EXPECT_EQ(integer_max(between(3, 7)), 7);
    EXPECT_EQ(accepted_values(between(0.5, 8.5)), "integer 1..8");
}

TEST(IntegerBounds, ABadValueNamesTheIntegersInside)
{
    const WorkloadInfo info{.name = "w", .variants = {"default"}, .parameters = {between(0.5, 8.5)}};
    EXPECT_NO_THROW(Settings(info, {{"k", "1"}}));
    EXPECT_NO_THROW(Settings(info, {{"k", "8"}}));
    for (const char* value : {"0", "9"}) {
        try {
            Settings settings(info, {{"k", value}});
            FAIL() << value << " was accepted";
        } catch (const InvalidArgument& error) {
            EXPECT_NE(error.message().find("an integer from 1 to 8"), std::string::npos) << error.message();
        }
    }
}

} // namespace
} // namespace duet::cli
