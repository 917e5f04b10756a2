// A word after --json or --csv that was not taken as its FILE (it does not end in .json or .csv):
// where the command then fails on it, as a workload or as an argument too many, the message says
// how to name it as the FILE.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;

TEST(CliFileNote, AWordLeftByJsonThatIsNoWorkloadSaysHowToNameTheFile)
{
    const auto result = run_duet({"run", "--json", "out"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, HasSubstr("no workload 'out'"));
    EXPECT_THAT(result.err, HasSubstr("so 'out' was read as an argument; for this file write --json=out"));
}

TEST(CliFileNote, AWordLeftByCsvThatPushesTheWorkloadOutSaysHowToNameTheFile)
{
    const auto result = run_duet({"bench", "--csv", "points", "vector_add", "--sweep", "n=1000"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, HasSubstr("unexpected argument 'vector_add'"));
    EXPECT_THAT(result.err, HasSubstr("so 'points' was read as an argument; for this file write --csv=points"));
}

TEST(CliFileNote, AnUnknownWorkloadNoOptionLeftHasNoNote)
{
    const auto result = run_duet({"run", "out", "--json", "x.json"});
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_THAT(result.err, HasSubstr("no workload 'out'"));
    EXPECT_THAT(result.err, ::testing::Not(HasSubstr("for this file write")));
}

} // namespace
} // namespace duet::test
