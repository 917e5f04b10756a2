// compare's share of the device's peak on PoCL: a CPU device reports neither a memory clock nor a
// compute capability, so the "of peak" column shows "-" and the JSON's peak and fraction_of_peak
// are null, for a workload whose work is bytes and one whose work is flops. The figures themselves
// need a GPU: the unit tests check them against the H100's datasheet.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;

/// A table line's cells: the text between runs of two or more spaces.
std::vector<std::string> cells_of(const std::string& line)
{
    std::vector<std::string> cells;
    std::size_t at = line.find_first_not_of(' ');
    while (at != std::string::npos) {
        std::size_t end = line.find("  ", at);
        cells.push_back(line.substr(at, end == std::string::npos ? std::string::npos : end - at));
        at = end == std::string::npos ? end : line.find_first_not_of(' ', end);
    }
    return cells;
}

/// The "of peak" cell of every run row under the table's heading in `out`.
std::vector<std::string> of_peak_cells(const std::string& out)
{
    std::istringstream lines(out);
    std::string line;
    std::vector<std::string> found;
    std::size_t column = 0;
    bool in_table = false;
    while (std::getline(lines, line)) {
        const auto cells = cells_of(line);
        const auto heading = std::find(cells.begin(), cells.end(), "of peak");
        if (heading != cells.end()) {
            column = static_cast<std::size_t>(heading - cells.begin());
            in_table = true;
        } else if (in_table && line.find("opencl:") != std::string::npos) {
            EXPECT_GT(cells.size(), column) << line;
            if (cells.size() > column) {
                found.push_back(cells[column]);
            }
        } else if (in_table && line.empty()) {
            in_table = false;
        }
    }
    return found;
}

TEST(PeakCli, PoclHasNoPeakSoTheColumnShowsADashAndTheJsonNull)
{
    REQUIRE_POCL(device);
    for (const std::vector<std::string>& workload :
         {std::vector<std::string>{"vector_add", "--set", "n=1000"},
          std::vector<std::string>{"matmul", "--variants", "tiled16", "--set", "m=32", "--set", "n=32", "--set",
                                   "k=32"}}) {
        std::vector<std::string> args{"compare"};
        args.insert(args.end(), workload.begin(), workload.end());
        args.insert(args.end(), {"--devices", device, "--repeats", "1", "--warmup", "0"});

        const auto table = run_duet(args);
        ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
        EXPECT_THAT(table.out, HasSubstr("of peak"));
        EXPECT_EQ(of_peak_cells(table.out), std::vector<std::string>{"-"}) << table.out;

        args.push_back("--json");
        const auto json_run = run_duet(args);
        ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
        const auto runs = json::parse(json_run.out)["runs"].array();
        ASSERT_EQ(runs.size(), 1u);
        EXPECT_TRUE(runs[0]["rate"].number() > 0) << workload[0];
        EXPECT_TRUE(runs[0]["peak"].is_null()) << workload[0];
        EXPECT_TRUE(runs[0]["fraction_of_peak"].is_null()) << workload[0];
    }
}

TEST(PeakCli, TheReportOpensWithASummaryOfEveryWorkloadOnEveryDevice)
{
    const auto devices = two_devices();
    if (!devices) {
        GTEST_SKIP() << "fewer than two devices";
    }
    const TempDir dir;
    const std::string report = (dir.path() / "report.html").string();
    const auto done =
        run_duet({"compare", "vector_add", "--set", "n=1000", "--devices", devices->first + "," + devices->second,
                  "--repeats", "1", "--warmup", "0", "--report", report},
                 devices->env);
    ASSERT_EQ(done.exit_code, 0) << done.out << done.err;
    const std::string html = read_file(report);
    const auto summary = html.find("<h2>Summary</h2>");
    ASSERT_NE(summary, std::string::npos);
    EXPECT_LT(html.find("class=\"banner"), summary) << "the banner comes first";
    EXPECT_LT(summary, html.find("<h2>vector_add</h2>")) << "before the workload's section";
    const std::string table = html.substr(summary, html.find("</table>", summary) - summary);
    EXPECT_THAT(table, HasSubstr("<th>workload / variant</th>"));
    EXPECT_THAT(table, HasSubstr("<td>vector_add / default</td>"));
    // One cell per device: the verdict, and its fraction of peak ("-" on PoCL, which has none).
    const std::string cell = "<td class=\"matrix ok\">agrees\nof peak ";
    std::size_t cells = 0;
    for (auto at = table.find(cell); at != std::string::npos; at = table.find(cell, at + 1)) {
        ++cells;
    }
    EXPECT_EQ(cells, 2u) << table;
    if (devices->env.contains("POCL_DEVICES")) {
        EXPECT_THAT(table, HasSubstr(cell + "-</td>")) << "PoCL's devices have no peak";
    }
}

} // namespace
} // namespace duet::test
