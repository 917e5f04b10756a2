// `duet devices` lists how a copy travels between each ordered pair of devices of one backend, in
// its table and its JSON; a backend with one device lists none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(CliPeerRoutes, EveryOrderedPairOfOneBackendIsListedWithItsRoute)
{
    const auto two = two_devices();
    if (!two) {
        GTEST_SKIP() << "fewer than two devices, and PoCL gives no second";
    }
    const auto listed = run_duet({"devices", "--json"}, two->env);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto devices = json::parse(listed.out);
    std::map<std::string, int> per_backend;
    for (const auto& device : devices["devices"].array()) {
        ++per_backend[device["backend"].string()];
    }
    std::size_t expected = 0;
    for (const auto& [backend, count] : per_backend) {
        expected += count < 8 ? static_cast<std::size_t>(count * (count - 1)) : 0;
    }
    const auto& routes = devices["peer_routes"].array();
    if (expected != 0) {
        EXPECT_EQ(routes.size(), expected);
    }
    const auto table = run_duet({"devices"}, two->env);
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_THAT(table.out, HasSubstr("Peer routes"));
    for (const auto& route : routes) {
        const std::string backend = route["backend"].string();
        EXPECT_TRUE(route["from"].string().starts_with(backend + ":")) << route["from"].string();
        EXPECT_NE(route["from"].string(), route["to"].string());
        const std::string how = route["route"].string();
        EXPECT_TRUE(how == "direct" || how == "staged") << how;
        if (backend == "opencl") {
            EXPECT_EQ(how, "staged") << "OpenCL devices have a context each: no direct route";
        }
        EXPECT_THAT(table.out,
                    HasSubstr(route["from"].string() + " → " + route["to"].string() + "  " +
                              (how == "direct" ? "direct (peer access)" : "staged through pinned host memory")));
    }
}

TEST(CliPeerRoutes, ABackendWithOneDeviceListsNoRoute)
{
    // PoCL alone: a GPU machine's NVIDIA OpenCL devices would join its one.
    const EnvChanges env = pocl_alone({{"POCL_DEVICES", "pthread"}});
    const auto listed = run_duet({"devices", "--json"}, env);
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto devices = json::parse(listed.out);
    std::map<std::string, int> per_backend;
    for (const auto& device : devices["devices"].array()) {
        ++per_backend[device["backend"].string()];
    }
    ASSERT_EQ(per_backend["opencl"], 1) << "POCL_DEVICES=pthread gives PoCL one device; duet said "
                                        << backends_said(listed.out);
    for (const auto& route : devices["peer_routes"].array()) {
        EXPECT_NE(route["backend"].string(), "opencl");
    }
    const auto table = run_duet({"devices"}, env);
    EXPECT_THAT(table.out, Not(HasSubstr("opencl:0 → ")));
}

} // namespace
} // namespace duet::test
