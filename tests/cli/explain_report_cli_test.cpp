// duet explain --report end to end on PoCL: the page is written beside the JSON and holds what the
// JSON holds (every run and its kernels, the reasons for what PoCL cannot show, each program's
// build options), goes to standard output in place of the table with "-", and is refused for a
// path it cannot create before anything runs.
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

/// `text`, which the report writes as it is: none of the characters HTML escapes.
std::string plain(const std::string& text)
{
    EXPECT_EQ(text.find_first_of("&<>\""), std::string::npos) << text;
    return text;
}

TEST(ExplainReportCli, TheReportHoldsEveryRunsKernelsAndWhatTheJsonSays)
{
    REQUIRE_POCL(device);
    const TempDir out;
    const std::string report_path = (out.path() / "explain.html").string();
    const std::string json_path = (out.path() / "explain.json").string();
    const auto done = run_duet({"explain", "stencil1d", "--variants", "naive,shared", "--set", "n=1000", "--devices",
                                device, "--report", report_path, "--json", json_path});
    ASSERT_EQ(done.exit_code, 0) << done.err;
    const std::string html = read_file(report_path);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_THAT(html, HasSubstr("<title>duet explain: stencil1d</title>"));
    EXPECT_THAT(html, HasSubstr("duet explain: stencil1d, 2 variants on 1 device"));
    EXPECT_THAT(html, HasSubstr("SASS: "));
    EXPECT_THAT(html, HasSubstr("No GPU was reached through both CUDA and OpenCL"));

    const auto document = json::parse(read_file(json_path));
    const auto& runs = document["runs"].array();
    ASSERT_EQ(runs.size(), 2u);
    for (std::size_t i = 0; i < runs.size(); ++i) {
        const std::string id = "run-" + std::to_string(i + 1);
        EXPECT_THAT(html, HasSubstr("<a href=\"#" + id + "\">")) << "the contents link each run";
        EXPECT_THAT(html, HasSubstr("<h2 id=\"" + id + "\">stencil1d/" + runs[i]["variant"].string() + " on " +
                                    runs[i]["device"].string()));
        const auto& kernels = runs[i]["kernels"].array();
        ASSERT_FALSE(kernels.empty());
        for (const auto& kernel : kernels) {
            const std::string name = kernel["name"].string();
            EXPECT_THAT(html, HasSubstr(">kernel " + plain(name) + ": ")) << name;
            // PoCL keeps no PTX: the report says why, in the JSON's words.
            EXPECT_TRUE(kernel["mix"].is_null());
            EXPECT_THAT(html, HasSubstr("Compiled code: none:</strong> " + plain(kernel["mix_absent"].string())));
            EXPECT_THAT(html, HasSubstr("SASS: none:</strong> " + plain(kernel["sass_absent"].string())));
        }
        for (const auto& program : runs[i]["programs"].array()) {
            // As given, without the spaces around them.
            const std::string options = plain(program["build_options"].string());
            const auto first = options.find_first_not_of(' ');
            ASSERT_NE(first, std::string::npos) << "PoCL's programs are built with -cl-kernel-arg-info";
            EXPECT_THAT(html, HasSubstr("<td class=\"options\">" +
                                        options.substr(first, options.find_last_not_of(' ') + 1 - first) + "</td>"));
        }
    }
    EXPECT_THAT(html, HasSubstr("<h2>Backends</h2>"));
    EXPECT_THAT(html, HasSubstr("<h2>Devices</h2>"));
    // The table still goes to standard output.
    EXPECT_THAT(done.out, HasSubstr("kernel stencil1d_naive"));
}

TEST(ExplainReportCli, ADashPutsTheReportInPlaceOfTheTable)
{
    REQUIRE_POCL(device);
    const auto done = run_duet({"explain", "vector_add", "--set", "n=100", "--devices", device, "--report", "-"});
    ASSERT_EQ(done.exit_code, 0) << done.err;
    EXPECT_EQ(done.out.rfind("<!DOCTYPE html>", 0), 0u) << "the report in place of the table";
    EXPECT_THAT(done.out, HasSubstr(">kernel vector_add: 1 launch</h3>"));
    EXPECT_THAT(done.out, Not(HasSubstr("1 run: 1 explained")));
}

TEST(ExplainReportCli, AReportThatCannotBeWrittenIsRefusedBeforeAnythingRuns)
{
    const TempDir scratch;
    const std::string missing = (scratch.path() / "no such folder" / "explain.html").string();
    const auto refused = run_duet({"explain", "vector_add", "--set", "n=100", "--report", missing});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_THAT(refused.err, HasSubstr("--report: cannot write " + missing + ": No such file or directory"));
    EXPECT_THAT(refused.out, Not(HasSubstr("kernel "))) << "nothing ran";
    EXPECT_THAT(refused.out, Not(HasSubstr("duet explain:")));
}

} // namespace
} // namespace duet::test
