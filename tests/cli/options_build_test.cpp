// --options API=FLAGS as a user gives it on PoCL: the flags reach the OpenCL compiler of a
// manifest's port (a #error behind a define they set stops its build, the compiler's log in the
// message), after the manifest's own options; a built-in workload compares with them and its
// JSON records them per run; malformed items are usage errors. The CUDA side (NVRTC taking the
// place of the fatbin, -use_fast_math) needs a GPU: the GPU machine's test run covers it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

/// The transpose port copied into `dir`, `prologue` before its .cl and `opencl_options` as its
/// manifest's [opencl] options where not empty; the manifest's path.
std::string transpose_copy(const TempDir& dir, const std::string& prologue, const std::string& opencl_options = "")
{
    const fs::path port = fs::path(DUET_PORTS_DIR) / "transpose";
    fs::copy_file(port / "transpose.cu", dir.path() / "transpose.cu");
    std::ofstream(dir.path() / "transpose.cl") << prologue << read_file((port / "transpose.cl").string());
    std::string manifest = read_file((port / "transpose.duet.toml").string());
    if (!opencl_options.empty()) {
        const std::string section = "[opencl]\n";
        const auto at = manifest.find(section);
        EXPECT_NE(at, std::string::npos) << "the manifest has no [opencl] table";
        manifest.insert(at + section.size(), "options = \"" + opencl_options + "\"\n");
    }
    std::ofstream(dir.path() / "transpose.duet.toml") << manifest;
    return (dir.path() / "transpose.duet.toml").string();
}

std::vector<std::string> small_run(const std::string& manifest, const std::string& device)
{
    return {"run",   manifest,  "--device", device, "--set",     "rows=33",
            "--set", "cols=17", "--warmup", "0",    "--repeats", "1"};
}

std::vector<std::string> with(std::vector<std::string> args, const std::vector<std::string>& more)
{
    args.insert(args.end(), more.begin(), more.end());
    return args;
}

TEST(OptionsBuild, ADefineGivenThroughOptionsReachesAPortsOpenClCompiler)
{
    REQUIRE_POCL(device);
    const TempDir dir;
    const auto manifest = transpose_copy(dir, "#ifdef DUET_BROKEN\n#error duet broken on purpose\n#endif\n");
    const auto broken = run_duet(with(small_run(manifest, device), {"--options", "opencl=-DDUET_BROKEN"}));
    EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
    EXPECT_THAT(broken.err, HasSubstr("transpose.cl:2:2: duet broken on purpose")) << "the compiler's log";
    EXPECT_THAT(broken.out, HasSubstr("build options after each program's own: opencl: -DDUET_BROKEN"));

    const auto plain = run_duet(small_run(manifest, device));
    EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
    EXPECT_THAT(plain.out, HasSubstr("result: matches"));
    EXPECT_THAT(plain.out, Not(HasSubstr("build options")));
}

TEST(OptionsBuild, TheManifestsOptionsAndTheCommandLinesBothApply)
{
    REQUIRE_POCL(device);
    const TempDir dir;
    const auto manifest = transpose_copy(
        dir, "#if defined(DUET_FROM_MANIFEST) && defined(DUET_FROM_COMMAND_LINE)\n#error both reached\n#endif\n",
        "-DDUET_FROM_MANIFEST");
    const auto both = run_duet(with(small_run(manifest, device), {"--options", "opencl=-DDUET_FROM_COMMAND_LINE"}));
    EXPECT_EQ(both.exit_code, 1) << both.out << both.err;
    EXPECT_THAT(both.err, HasSubstr("both reached"));
    const auto manifests_only = run_duet(small_run(manifest, device));
    EXPECT_EQ(manifests_only.exit_code, 0) << manifests_only.out << manifests_only.err;
}

TEST(OptionsBuild, CompareWithFastRelaxedMathPassesAndRecordsTheOptionsPerRun)
{
    REQUIRE_POCL(device);
    const std::vector<std::string> compare{"compare",  "vector_add", "--devices", device,
                                           "--set",    "n=1000",     "--repeats", "1",
                                           "--warmup", "0",          "--options", "opencl=-cl-fast-relaxed-math"};
    const auto table = run_duet(with(compare, {"--options", "cuda=-use_fast_math"}));
    EXPECT_EQ(table.exit_code, 0) << table.out << table.err;
    EXPECT_THAT(table.out, HasSubstr("build options after each program's own: cuda: -use_fast_math (NVRTC: a fatbin "
                                     "takes no options); opencl: -cl-fast-relaxed-math"));

    const auto json_run = run_duet(with(compare, {"--json"}));
    ASSERT_EQ(json_run.exit_code, 0) << json_run.err;
    const auto runs = json::parse(json_run.out)["runs"].array();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0]["build_options"].string(), "-cl-fast-relaxed-math");
    EXPECT_EQ(runs[0]["status"].string(), "ok");

    const auto without = run_duet(
        {"compare", "vector_add", "--devices", device, "--set", "n=1000", "--repeats", "1", "--warmup", "0", "--json"});
    ASSERT_EQ(without.exit_code, 0) << without.err;
    EXPECT_EQ(json::parse(without.out)["runs"].array().at(0)["build_options"].string(), "");
}

TEST(OptionsBuild, AWorkloadsOwnProgramsGetTheFlags)
{
    // vector_add builds its program deep in its own code: a flag the compiler refuses fails it.
    REQUIRE_POCL(device);
    const auto refused = run_duet({"compare", "vector_add", "--devices", device, "--set", "n=1000", "--repeats", "1",
                                   "--warmup", "0", "--options", "opencl=-cl-no-such-option"});
    EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
    EXPECT_THAT(refused.err, HasSubstr("-cl-no-such-option"));
}

TEST(OptionsBuild, TestBuildsEveryCaseWithTheFlags)
{
    // `duet test` of a port: every case's build gets the flags, so the define stops each of them.
    REQUIRE_POCL(device);
    const TempDir dir;
    const auto manifest = transpose_copy(dir, "#ifdef DUET_BROKEN\n#error duet broken on purpose\n#endif\n");
    const auto broken = run_duet({"test", manifest, "--devices", device, "--options", "opencl=-DDUET_BROKEN"});
    EXPECT_EQ(broken.exit_code, 1) << broken.out << broken.err;
    EXPECT_THAT(broken.out + broken.err, HasSubstr("duet broken on purpose"));
    EXPECT_THAT(broken.out, HasSubstr("3 runs: 0 checked, 3 failed"));
    const auto plain = run_duet({"test", manifest, "--devices", device});
    EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
    EXPECT_THAT(plain.out, HasSubstr("All agree"));
}

TEST(OptionsBuild, AMalformedItemIsAUsageErrorNamingTheFormAndTheApis)
{
    for (const auto* command : {"compare", "run", "test", "bench", "explain"}) {
        const auto unknown = run_duet({command, "vector_add", "--options", "foo=bar"});
        EXPECT_EQ(unknown.exit_code, 2) << command << ": " << unknown.err;
        EXPECT_THAT(unknown.err, HasSubstr("'foo' is not an API")) << command;
        EXPECT_THAT(unknown.err, HasSubstr("API=FLAGS[,API=FLAGS], API one of: cuda, opencl")) << command;
    }
    const auto no_equals = run_duet({"compare", "vector_add", "--options", "opencl"});
    EXPECT_EQ(no_equals.exit_code, 2) << no_equals.err;
    EXPECT_THAT(no_equals.err, HasSubstr("--options 'opencl' has no '='"));
}

} // namespace
} // namespace duet::test
