// `duet list`'s largest working value where a rule between parameters is no bound (chunk a multiple
// of grain): never a value that breaks the rule, never "none works" where some value does, and said
// to be no single limit.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <regex>
#include <sstream>
#include <string>

#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

/// The row of `parameter` in the listing of the misbehaving workload.
std::string misbehaving_row(const std::string& listing, const std::string& parameter)
{
    const std::string text = "\n" + listing;
    std::istringstream lines(text.substr(text.find("\nmisbehaving: ")));
    std::string line;
    while (std::getline(lines, line)) {
        if (line.starts_with("    " + parameter + " ")) {
            return line;
        }
    }
    return "";
}

TEST(CliListLimits, ARuleThatIsNoBoundGivesTheLargestValueFoundToWorkAndSaysSo)
{
    const auto result = run_duet({"list", "misbehaving"}, {{"DUET_PLUGIN_PATH", DUET_TEST_MISBEHAVING_PLUGIN_DIR}});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    // chunk in 1..1000 must be a multiple of grain, 64: 1 does not work, 64 and 960 do.
    const std::string chunk = misbehaving_row(result.out, "chunk");
    EXPECT_THAT(chunk,
                HasSubstr("integer 1..1000; no single limit: the largest value found to work is 960, and some "
                          "below it do not (parameters 'chunk' (961) and 'grain' (64) of workload "
                          "'misbehaving' break a rule: chunk must be a multiple of grain, the rest at defaults)"))
        << result.out;
    EXPECT_THAT(chunk, Not(HasSubstr("none works")));
    // grain in 1..256 must divide chunk, 64: 64 is the largest, and 3 below it does not work.
    EXPECT_THAT(misbehaving_row(result.out, "grain"),
                HasSubstr("integer 1..256; no single limit: the largest value found to work is 64, and some below it "
                          "do not (parameters 'chunk' (64) and 'grain' (65)"))
        << result.out;
    // Every value the listing names as working keeps the rule.
    const std::regex named(R"((at most|found to work is) (\d+))");
    for (auto match = std::sregex_iterator(chunk.begin(), chunk.end(), named); match != std::sregex_iterator();
         ++match) {
        EXPECT_EQ(std::stoll((*match)[2].str()) % 64, 0) << chunk;
    }
    // A bound stays a bound.
    EXPECT_THAT(misbehaving_row(result.out, "n"), HasSubstr("integer 1..16777216; at most 4096 (")) << result.out;
}

} // namespace
} // namespace duet::test
