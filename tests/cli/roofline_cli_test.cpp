// compare's roofline on PoCL: the JSON carries each run's declared bytes and flops, its intensity
// and rates, null fractions of peaks a CPU does not report with why, and the fraction of its own
// device-to-device copy where the workload measures one; the table prints the block and why there
// is no roof; the report draws the chart with the kernel's point and says why there is no roof.
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

TEST(RooflineCli, JsonCarriesTheRooflineOfEveryRun)
{
    REQUIRE_POCL(device);
    const auto done = run_duet(
        {"compare", "vector_add", "--set", "n=1000", "--devices", device, "--repeats", "1", "--warmup", "0", "--json"});
    ASSERT_EQ(done.exit_code, 0) << done.err;
    const auto runs = json::parse(done.out)["runs"].array();
    ASSERT_EQ(runs.size(), 1u);
    const auto& roofline = runs[0]["roofline"];
    // vector_add: 12 bytes and 1 flop per element.
    EXPECT_EQ(roofline["bytes"].number(), 12000);
    EXPECT_EQ(roofline["flops"].number(), 1000);
    EXPECT_DOUBLE_EQ(roofline["intensity"].number(), 1.0 / 12);
    EXPECT_GT(roofline["gbps"].number(), 0);
    EXPECT_NEAR(roofline["gflops"].number(), roofline["gbps"].number() / 12, 1e-9 * roofline["gbps"].number());
    EXPECT_DOUBLE_EQ(roofline["gbps"].number(), runs[0]["rate"].number()) << "the rate is in bytes";
    for (const char* unknown : {"of_peak_bandwidth", "of_peak_flops", "of_d2d_copy", "bound"}) {
        EXPECT_TRUE(roofline[unknown].is_null()) << unknown;
    }
    const auto reasons = roofline["unknown"].array();
    ASSERT_EQ(reasons.size(), 2u);
    EXPECT_THAT(reasons[0].string(), HasSubstr("reports no memory clock or bus width"));
    EXPECT_THAT(reasons[1].string(), HasSubstr("is not a GPU"));
}

TEST(RooflineCli, AWorkloadWithACopyYardstickGetsItsFraction)
{
    REQUIRE_POCL(device);
    const auto done = run_duet({"compare", "stencil1d", "--variants", "naive", "--set", "n=100000", "--devices", device,
                                "--repeats", "1", "--warmup", "0", "--json"});
    ASSERT_EQ(done.exit_code, 0) << done.err;
    const auto runs = json::parse(done.out)["runs"].array();
    ASSERT_EQ(runs.size(), 1u);
    const auto& roofline = runs[0]["roofline"];
    const double copy = roofline["d2d_copy_gbps"].number();
    ASSERT_GT(copy, 0);
    EXPECT_DOUBLE_EQ(roofline["of_d2d_copy"].number(), roofline["gbps"].number() / copy);
    // radius 2: the 99996 outputs off the edge each add 5 values and divide once.
    EXPECT_EQ(roofline["flops"].number(), 99996.0 * 5);
}

TEST(RooflineCli, TableAndReportShowTheRooflineAndWhyThereIsNoRoof)
{
    REQUIRE_POCL(device);
    const TempDir dir;
    const std::string report = (dir.path() / "report.html").string();
    const auto done = run_duet({"compare", "matmul", "--variants", "tiled16", "--set", "m=32", "--set", "n=32", "--set",
                                "k=32", "--devices", device, "--repeats", "1", "--warmup", "0", "--report", report});
    ASSERT_EQ(done.exit_code, 0) << done.out << done.err;
    EXPECT_THAT(done.out, HasSubstr("matmul's roofline"));
    EXPECT_THAT(done.out, HasSubstr("flop/byte"));
    EXPECT_THAT(done.out, HasSubstr("no roof for " + device));
    // 2·32³ flops over 3·32² floats: 5.333 flop/byte.
    EXPECT_THAT(done.out, HasSubstr("5.333"));

    const std::string html = read_file(report);
    const auto chart = html.find("aria-label=\"matmul: roofline");
    ASSERT_NE(chart, std::string::npos);
    const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
    EXPECT_THAT(svg, HasSubstr("data-label=\"tiled16 OpenCL (PoCL)\""));
    EXPECT_THAT(svg, HasSubstr("class=\"joined\""));
    EXPECT_THAT(svg, HasSubstr("no roof for " + device));
    EXPECT_THAT(svg, ::testing::Not(HasSubstr("class=\"roof\""))) << "a CPU has no roofs";
    EXPECT_THAT(html, HasSubstr("<th>flop/byte</th>"));
}

// PoCL's two CPU devices bear one name: each point's label and each series' legend names its device.
TEST(RooflineCli, TwoDevicesOfOneNameAreToldApartOnTheChart)
{
    const EnvChanges two = pocl_alone({{"POCL_DEVICES", "pthread pthread"}});
    std::vector<std::string> pocl;
    const auto listed = json::parse(run_duet({"devices", "--json"}, two).out);
    for (const auto& device : listed["devices"].array()) {
        if (device["api"].string() == "OpenCL (PoCL)") {
            pocl.push_back(device["selector"].string());
        }
    }
    if (pocl.size() < 2) {
        GTEST_SKIP() << "POCL_DEVICES=\"pthread pthread\" gave " << pocl.size() << " PoCL devices";
    }
    const TempDir dir;
    const std::string report = (dir.path() / "report.html").string();
    const auto done =
        run_duet({"compare", "matmul", "--variants", "tiled16", "--set", "m=32", "--set", "n=32", "--set", "k=32",
                  "--devices", pocl[0] + "," + pocl[1], "--repeats", "1", "--warmup", "0", "--report", report},
                 two);
    ASSERT_EQ(done.exit_code, 0) << done.out << done.err;
    const std::string html = read_file(report);
    const auto chart = html.find("aria-label=\"matmul: roofline");
    ASSERT_NE(chart, std::string::npos);
    const std::string svg = html.substr(chart, html.find("</svg>", chart) - chart);
    for (const auto& device : {pocl[0], pocl[1]}) {
        EXPECT_THAT(svg, HasSubstr("data-label=\"tiled16 OpenCL (PoCL) " + device + "\""));
        EXPECT_THAT(svg, HasSubstr("class=\"legend\">" + device + " tiled16 on "));
    }
}

} // namespace
} // namespace duet::test
