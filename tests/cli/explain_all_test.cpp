// duet explain of everything duet ships, on PoCL: every in-tree workload in every variant at its
// defaults, and every example port by its manifest. Each run is explained or refused with a
// reason, and each explained kernel names the launches it was made with.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

/// The runs of `duet explain <args> --json` on `device`, each checked as the file says; how many
/// kernels they explained.
std::size_t expect_explained(std::vector<std::string> args, const std::string& device)
{
    SCOPED_TRACE("duet explain " + args.front());
    args.insert(args.begin(), "explain");
    for (const std::string more : {"--devices", device.c_str(), "--json"}) {
        args.push_back(more);
    }
    const auto result = run_duet(args);
    EXPECT_EQ(result.exit_code, 0) << result.err;
    if (result.exit_code != 0) {
        return 0;
    }
    std::size_t kernels = 0;
    const auto document = json::parse(result.out);
    for (const auto& run : document["runs"].array()) {
        const std::string status = run["status"].string();
        SCOPED_TRACE(run["variant"].string() + ": " + status);
        EXPECT_TRUE(status == "ok" || status == "unsupported") << run["reason"].string();
        if (status != "ok") {
            EXPECT_FALSE(run["reason"].string().empty()) << "a run refused says why";
            continue;
        }
        for (const auto& kernel : run["kernels"].array()) {
            ++kernels;
            EXPECT_FALSE(kernel["name"].string().empty());
            EXPECT_FALSE(kernel["launches"].array().empty()) << kernel["name"].string() << " has no launch";
            for (const auto& launch : kernel["launches"].array()) {
                EXPECT_GT(launch["count"].number(), 0) << kernel["name"].string();
            }
        }
    }
    return kernels;
}

TEST(ExplainAll, EveryWorkloadInEveryVariantIsExplained)
{
    REQUIRE_POCL(device);
    const auto listed = run_duet({"list", "--json"});
    ASSERT_EQ(listed.exit_code, 0) << listed.err;
    const auto document = json::parse(listed.out);
    const auto& workloads = document["workloads"].array();
    ASSERT_GE(workloads.size(), 10u);
    for (const auto& workload : workloads) {
        const std::string name = workload["name"].string();
        std::string variants;
        for (const auto& variant : workload["variants"].array()) {
            variants += (variants.empty() ? "" : ",") + variant.string();
        }
        const std::size_t kernels = expect_explained({name, "--variants", variants}, device);
        // bandwidth moves data only: its runs launch no kernel, and say so.
        if (name != "bandwidth") {
            EXPECT_GT(kernels, 0u) << name << " explained no kernel in any variant";
        }
    }
}

TEST(ExplainAll, EveryExamplePortIsExplainedByItsManifest)
{
    REQUIRE_POCL(device);
    std::size_t ports = 0;
    for (const auto& entry : std::filesystem::directory_iterator(DUET_PORTS_DIR)) {
        const auto manifest = entry.path() / (entry.path().filename().string() + ".duet.toml");
        if (!std::filesystem::is_regular_file(manifest)) {
            continue;
        }
        ++ports;
        EXPECT_GT(expect_explained({manifest.string()}, device), 0u) << manifest;
    }
    EXPECT_GE(ports, 3u) << "saxpy, transpose and reduce at least, in " << DUET_PORTS_DIR;
}

TEST(ExplainAll, ATunersTrialBuildsAreLeftOutAndCountedOnTheBuildTheRunUsed)
{
    // matmul blocked tunes its tiles on first use (explain keeps no cache, so on every run): each
    // candidate is a program of its own with a kernel of the same name.
    REQUIRE_POCL(device);
    const auto result = run_duet({"explain", "matmul", "--variants", "blocked", "--devices", device, "--set", "m=256",
                                  "--set", "n=256", "--set", "k=256", "--json"});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto document = json::parse(result.out);
    const auto& kernels = document["runs"].array().at(0)["kernels"].array();
    ASSERT_EQ(kernels.size(), 1u) << "one kernel stands for the name";
    EXPECT_EQ(kernels[0]["name"].string(), "matmul_blocked_aligned") << "256³: K and N multiples of 4";
    EXPECT_GT(kernels[0]["earlier_builds"].number(), 0) << "the tuner's trials are counted";
    const auto table = run_duet({"explain", "matmul", "--variants", "blocked", "--devices", device, "--set", "m=256",
                                 "--set", "n=256", "--set", "k=256"});
    EXPECT_THAT(table.out, ::testing::HasSubstr("a tuner's trials, left out)"));
}

} // namespace
} // namespace duet::test
