// `duet compare` on two devices: the devices of a variant take their passes in turn; the header,
// the JSON and the report say so, and the runs still agree and come back in the devices' order.
// On one device nothing takes turns and nothing says it does.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::string turns_rule = "the devices of a variant take their passes in turn, one pass each";

/// The selectors of the devices duet finds under `env`.
std::vector<std::string> selectors(const EnvChanges& env)
{
    const auto result = run_duet({"devices", "--json"}, env);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    const auto listed = json::parse(result.out);
    std::vector<std::string> found;
    for (const auto& device : listed["devices"].array()) {
        found.push_back(device["selector"].string());
    }
    return found;
}

TEST(CliInterleave, CompareOnTwoDevicesSaysTheyTakeTurnsAndStillAgrees)
{
    const auto two = two_devices();
    if (!two) {
        GTEST_SKIP() << "fewer than two devices, and PoCL gives no second";
    }
    const EnvChanges& env = two->env;
    const std::vector<std::string> devices{two->first, two->second};
    const TempDir out;
    const std::string json_path = (out.path() / "compare.json").string();
    const std::string report_path = (out.path() / "compare.html").string();
    const auto result = run_duet({"compare", "vector_add", "--devices", devices[0] + "," + devices[1], "--set",
                                  "n=1000", "--json", json_path, "--report", report_path},
                                 env);
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_THAT(result.out, HasSubstr(turns_rule));
    EXPECT_NE(read_file(report_path).find(turns_rule), std::string::npos) << "the report does not state the rule";

    const auto json = json::parse(read_file(json_path));
    EXPECT_TRUE(json["timing"]["in_turns"].boolean());
    EXPECT_TRUE(json["agree"].boolean());
    const auto& runs = json["runs"].array();
    ASSERT_EQ(runs.size(), 2u);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        EXPECT_EQ(runs[i]["device"].string(), devices[i]);
        EXPECT_EQ(runs[i]["status"].string(), "ok") << runs[i]["reason"].string();
        EXPECT_GE(runs[i]["samples"].number(), 5);
    }
    EXPECT_EQ(runs[1]["baseline"].string(), devices[0]);
}

TEST(CliInterleave, TheRunsOfAVariantOnTwoDevicesOverlap)
{
    const auto two = two_devices({{"DUET_PLUGIN_PATH", DUET_TEST_MISBEHAVING_PLUGIN_DIR}});
    if (!two) {
        GTEST_SKIP() << "fewer than two devices, and PoCL gives no second";
    }
    EnvChanges env = two->env;
    const std::vector<std::string> devices{two->first, two->second};
    const TempDir out;
    const std::string log_path = (out.path() / "runs.log").string();
    env["DUET_TEST_RUN_LOG"] = log_path;
    const auto result = run_duet(
        {"compare", "misbehaving", "--variants", "fine", "--repeats", "3", "--devices", devices[0] + "," + devices[1]},
        env);
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    // Taking turns, the second run starts before the first ends; one after another, it would not.
    const std::string a = devices[0], b = devices[1];
    EXPECT_EQ(read_file(log_path), "start " + a + "\nstart " + b + "\nend " + a + "\nend " + b + "\n");
}

TEST(CliInterleave, CompareOnOneDeviceTakesNoTurns)
{
    const auto devices = selectors({});
    if (devices.empty()) {
        GTEST_SKIP() << "no device";
    }
    const TempDir out;
    const std::string json_path = (out.path() / "compare.json").string();
    const auto result =
        run_duet({"compare", "vector_add", "--devices", devices[0], "--set", "n=1000", "--json", json_path});
    ASSERT_EQ(result.exit_code, 0) << result.out << result.err;
    EXPECT_THAT(result.out, Not(HasSubstr(turns_rule)));
    EXPECT_FALSE(json::parse(read_file(json_path))["timing"]["in_turns"].boolean());
}

} // namespace
} // namespace duet::test
