// duet explain end to end on PoCL: the build caches it turns off so that NVIDIA's OpenCL compiles
// (and the user's settings it keeps), each program's build options in the table and the JSON, and
// --assembly's folder: refused before anything runs where it cannot take files.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TEST(ExplainBuild, TurnsTheBuildCachesOffUnlessTheUserSetThem)
{
    REQUIRE_POCL(device);
    const TempDir cache;
    const std::vector<std::string> args{"explain", "vector_add", "--devices", device, "--set", "n=100"};
    const auto off = run_duet(args, {{"DUET_CACHE_DIR", cache.path().string()}, {"CUDA_CACHE_DISABLE", std::nullopt}});
    ASSERT_EQ(off.exit_code, 0) << off.err;
    EXPECT_THAT(off.out, HasSubstr("no build cache (CUDA_CACHE_DISABLE=1, DUET_CACHE=off): NVIDIA's OpenCL compiles "
                                   "and names registers\n"));
    EXPECT_THAT(files_below(cache.path()), IsEmpty()) << "DUET_CACHE=off keeps nothing on disk";

    const auto kept =
        run_duet(args, {{"DUET_CACHE_DIR", cache.path().string()}, {"DUET_CACHE", "on"}, {"CUDA_CACHE_DISABLE", "0"}});
    ASSERT_EQ(kept.exit_code, 0) << kept.err;
    EXPECT_THAT(kept.out, HasSubstr("build caches as set (CUDA_CACHE_DISABLE=0, DUET_CACHE=on): a cached build hides "
                                    "OpenCL's registers\n"));
    EXPECT_THAT(files_below(cache.path()), Not(IsEmpty())) << "the user's DUET_CACHE=on is kept";
}

TEST(ExplainBuild, EachProgramsBuildOptionsAreShownAndInTheJson)
{
    REQUIRE_POCL(device);
    const std::vector<std::string> args{
        "explain", "vector_add", "--devices", device, "--set", "n=100", "--options=opencl=-cl-mad-enable"};
    const auto table = run_duet(args);
    ASSERT_EQ(table.exit_code, 0) << table.err;
    EXPECT_THAT(table.out, HasSubstr("build options of the program of vector_add: "));
    EXPECT_THAT(table.out, HasSubstr("-cl-mad-enable"));

    auto with_json = args;
    with_json.push_back("--json");
    const auto result = run_duet(with_json);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    const auto document = json::parse(result.out);
    const auto& program = document["runs"].array().at(0)["programs"].array().at(0);
    EXPECT_THAT(program["build_options"].string(), HasSubstr("-cl-mad-enable"));
    EXPECT_EQ(program["build_options_absent"].string(), "");
}

TEST(ExplainBuild, AnAssemblyFolderThatCannotTakeFilesIsRefusedBeforeAnythingRuns)
{
    const TempDir scratch;
    const auto not_folder = run_duet({"explain", "vector_add", "--assembly", "/dev/null"});
    EXPECT_EQ(not_folder.exit_code, 2);
    EXPECT_THAT(not_folder.err, HasSubstr("--assembly: cannot write files in /dev/null: "));
    EXPECT_THAT(not_folder.out, Not(HasSubstr("kernel "))) << "nothing ran";

    const auto locked = scratch.path() / "locked";
    std::filesystem::create_directory(locked);
    std::filesystem::permissions(locked, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
    if (::access(locked.c_str(), W_OK) == 0) {
        GTEST_SKIP() << "a folder without write permission is writable here (running as root)";
    }
    const auto refused = run_duet({"explain", "vector_add", "--assembly", locked.string()});
    EXPECT_EQ(refused.exit_code, 2);
    EXPECT_THAT(refused.err, HasSubstr("--assembly: cannot write files in " + locked.string() + ": Permission denied"));
    EXPECT_THAT(refused.out, Not(HasSubstr("kernel ")));
    std::filesystem::permissions(locked, std::filesystem::perms::owner_all);
}

TEST(ExplainBuild, AnAssemblyFolderIsMadeAndLeftWithoutStrayFilesWherePoclKeepsNoPtx)
{
    REQUIRE_POCL(device);
    const TempDir scratch;
    const auto folder = scratch.path() / "made" / "here";
    const auto result =
        run_duet({"explain", "vector_add", "--devices", device, "--set", "n=100", "--assembly", folder.string()});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_TRUE(std::filesystem::is_directory(folder));
    EXPECT_THAT(files_below(folder), IsEmpty()) << "PoCL's binary is no PTX, and the write test leaves nothing";
    EXPECT_THAT(result.out, HasSubstr("no assembly to write for vector_add-default-" + device));
}

} // namespace
} // namespace duet::test
