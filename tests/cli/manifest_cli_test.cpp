// Manifests that used to crash or hang the duet command, run as a user runs it: an expression
// nested past the parser's stack, a FIFO or a device where a file should be, a .npy header that
// breaks off; and `duet doctor --kernel` on such files, on a directory, and on a source that does
// not build. Each run has a timeout, so a hang fails the test rather than the suite.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "environment.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

namespace fs = std::filesystem;

/// Far longer than any of these runs takes; what runs past it hung.
constexpr unsigned timeout_seconds = 120;

/// SAXPY's port copied into `dir` with each `from` in its manifest replaced by its `to`; the
/// manifest's path.
fs::path saxpy_with(const TempDir& dir, const std::vector<std::pair<std::string, std::string>>& changes)
{
    const fs::path saxpy = fs::path(DUET_PORTS_DIR) / "saxpy";
    for (const auto* file : {"saxpy.cu", "saxpy.cl", "libsaxpy_reference.so"}) {
        fs::copy_file(saxpy / file, dir.path() / file);
    }
    std::string manifest = read_file((saxpy / "saxpy.duet.toml").string());
    for (const auto& [from, to] : changes) {
        const auto at = manifest.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) {
            manifest.replace(at, from.size(), to);
        }
    }
    std::ofstream(dir.path() / "saxpy.duet.toml") << manifest;
    return dir.path() / "saxpy.duet.toml";
}

/// Runs duet, which must neither hang nor die of a signal.
Completed run_to_the_end(const std::vector<std::string>& args, const EnvChanges& changes = {})
{
    const auto result = run_duet(args, changes, Limits{.timeout_seconds = timeout_seconds});
    EXPECT_FALSE(result.timed_out) << "duet hung: " << ::testing::PrintToString(args);
    EXPECT_NE(result.exit_code, -1) << "duet died of a signal: " << ::testing::PrintToString(args) << "\n"
                                    << result.err;
    return result;
}

TEST(ManifestCli, AnExpressionNestedPastTheParsersStackCrashesNoCommand)
{
    const TempDir dir;
    const std::string deep = std::string(20000, '(') + "1" + std::string(20000, ')');
    saxpy_with(dir, {{"function = \"saxpy_reference\"",
                      "function = \"saxpy_reference\"\n[repeat]\ncount = \"" + deep + "\""}});
    const EnvChanges on_path{{"DUET_PLUGIN_PATH", dir.path().string()}};
    for (const auto* command : {"list", "doctor"}) {
        const auto result = run_to_the_end({command}, on_path);
        EXPECT_THAT(result.err + result.out,
                    HasSubstr("saxpy.duet.toml:38: repeat.count: an expression of 40001 characters; the limit is 4096"))
            << command;
    }
    // The other workloads still run.
    const auto run =
        run_to_the_end({"run", "vector_add", "--set", "n=1000", "--warmup", "0", "--repeats", "1"}, on_path);
    EXPECT_NE(run.exit_code, 1) << run.err;
}

TEST(ManifestCli, AFifoOrADeviceWhereAFileShouldBeIsNamedAndNothingHangs)
{
    const TempDir plugins;
    const fs::path fifo_manifest = plugins.path() / "fifo.duet.toml";
    ASSERT_EQ(::mkfifo(fifo_manifest.c_str(), 0600), 0);
    const auto list = run_to_the_end({"list"}, {{"DUET_PLUGIN_PATH", plugins.path().string()}});
    // Said once, with no line: the manifest as a whole cannot be read.
    EXPECT_THAT(list.err,
                HasSubstr("[duet] manifest: cannot read " + fifo_manifest.string() + ": not a regular file (a FIFO)"));
    EXPECT_THAT(list.err, Not(HasSubstr("fifo.duet.toml:0")));
    EXPECT_THAT(list.out, HasSubstr("vector_add")) << "the other workloads are listed";

    const TempDir dir;
    ASSERT_EQ(::mkfifo((dir.path() / "fifo.cl").c_str(), 0600), 0);
    auto manifest = saxpy_with(dir, {{"source = \"saxpy.cl\"", "source = \"fifo.cl\""}});
    auto run = run_to_the_end({"run", manifest.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("saxpy.duet.toml:16: opencl.source: cannot read "));
    EXPECT_THAT(run.err, HasSubstr("fifo.cl: not a regular file (a FIFO)"));

    const TempDir zero;
    manifest = saxpy_with(zero, {{"init = { random = [-1, 1] }, index", "init = { file = \"/dev/zero\" }, index"}});
    run = run_to_the_end({"run", manifest.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("saxpy.duet.toml:21: buffers.x.init.file: cannot read /dev/zero: not a regular "
                                   "file (a character device)"));

    // doctor --kernel reads its file the same way.
    const auto doctor = run_to_the_end({"doctor", "--kernel", (dir.path() / "fifo.cl").string()});
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_THAT(doctor.out, HasSubstr("fifo.cl: not a regular file (a FIFO)"));
    fs::create_symlink("/dev/zero", dir.path() / "zero.cl");
    const auto device = run_to_the_end({"doctor", "--kernel", (dir.path() / "zero.cl").string()});
    EXPECT_EQ(device.exit_code, 1);
    EXPECT_THAT(device.out, HasSubstr("zero.cl: not a regular file (a character device)"));
}

TEST(ManifestCli, AnNpyHeaderThatBreaksOffAfterAKeyIsRefused)
{
    const TempDir dir;
    const auto manifest =
        saxpy_with(dir, {{"init = { random = [-1, 1] }, index", "init = { file = \"x.npy\" }, index"}});
    // The header ends right after descr's colon, as a truncated write leaves it.
    std::ofstream(dir.path() / "x.npy", std::ios::binary) << std::string("\x93NUMPY\x01\x00\x09\x00{'descr':", 19);
    const auto run = run_to_the_end({"run", manifest.string()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_THAT(run.err, HasSubstr("saxpy.duet.toml:21: buffers.x.init.file: x.npy: the .npy header gives 'descr' "
                                   "no value"));
}

TEST(ManifestCli, DoctorKernelOnADirectoryFailsOnceSayingWhatItIs)
{
    const TempDir dir;
    fs::create_directory(dir.path() / "kernels.cl");
    const auto doctor = run_to_the_end({"doctor", "--kernel", (dir.path() / "kernels.cl").string()});
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_THAT(doctor.out, HasSubstr("FAIL  --kernel " + (dir.path() / "kernels.cl").string() +
                                      ": not a regular file (a directory)"));
    EXPECT_THAT(doctor.out, Not(HasSubstr("builds on")));
    EXPECT_THAT(doctor.out, Not(HasSubstr("to build it on")));
}

TEST(ManifestCli, DoctorKernelBuildErrorsNameTheUsersFileAndLine)
{
    const TempDir dir;
    const fs::path file = dir.path() / "broken.cl";
    std::ofstream(file) << "__kernel void broken(__global float* x)\n{\n    x[0] = undeclared_value;\n}\n";
    const auto doctor = run_to_the_end({"doctor", "--kernel", file.string()});
    if (doctor.out.find("no opencl device to build it on") != std::string::npos) {
        GTEST_SKIP() << "no OpenCL device";
    }
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_THAT(doctor.out, HasSubstr(file.string() + ":3:")) << "the log points at the user's file and line";
    EXPECT_THAT(doctor.out, HasSubstr("undeclared_value"));

    // A file that builds but declares no kernel is one FAIL saying so.
    const fs::path empty = dir.path() / "empty.cl";
    std::ofstream(empty) << "// no kernel here\nconstant int unused = 1;\n";
    const auto none = run_to_the_end({"doctor", "--kernel", empty.string()});
    EXPECT_EQ(none.exit_code, 1);
    EXPECT_THAT(none.out, HasSubstr("but declares no kernel"));
    EXPECT_THAT(none.out, Not(HasSubstr("to build it on")));
}

// A value within its parameter's range that breaks the manifest for these settings (a define that
// divides by zero) is a bad value: exit 2 naming file, line and field, nothing run; a sweep skips
// that point with the reason, as it skips one that breaks a rule.
TEST(ManifestCli, SettingsThatBreakTheManifestAreABadValue)
{
    const TempDir dir;
    const auto manifest =
        saxpy_with(dir, {{"args = [\"x\", \"y\", \"a\", \"n\"]",
                          "args = [\"x\", \"y\", \"a\", \"n\"]\ndefines = { X = \"100 / (n - 5)\" }"}});
    const std::string reason = "saxpy.duet.toml:19: opencl.defines.X: '100 / (n - 5)', column 5: division by zero "
                               "where n = 5";
    for (const auto* command : {"run", "compare"}) {
        const auto result = run_to_the_end({command, manifest.string(), "--set", "n=5"});
        EXPECT_EQ(result.exit_code, 2) << command << "\n" << result.err;
        EXPECT_THAT(result.err, HasSubstr("parameters 'n' (5) and 'a' (2.5) of workload 'saxpy' break a rule: "))
            << command;
        EXPECT_THAT(result.err, HasSubstr(reason)) << command;
        EXPECT_THAT(result.out, Not(HasSubstr("opencl:"))) << command << ": nothing runs";
    }
    const auto bench = run_to_the_end(
        {"bench", manifest.string(), "--sweep", "n=5,6", "--repeats", "1", "--warmup", "0", "--json", "-"});
    EXPECT_EQ(bench.exit_code, 0) << bench.err;
    EXPECT_THAT(bench.out, HasSubstr("skipped: parameters 'n' (5) and 'a' (2.5) of workload 'saxpy' break a rule: "));
    EXPECT_THAT(bench.out, HasSubstr(reason));
}

// `doctor --kernel FILE:NAME` where the program builds but has no such kernel says so, not that
// it did not build: with PoCL, a kernel named like an OpenCL built-in (dot) is renamed.
TEST(ManifestCli, DoctorKernelSaysAKernelIsMissingFromAProgramThatBuilt)
{
    const TempDir dir;
    const fs::path file = dir.path() / "dot.cl";
    std::ofstream(file) << "__kernel void dot(__global float* x) { x[0] = 1.0f; }\n";
    const auto doctor = run_to_the_end({"doctor", "--kernel", file.string() + ":dot"});
    if (doctor.out.find("no opencl device to build it on") != std::string::npos) {
        GTEST_SKIP() << "no OpenCL device";
    }
    if (doctor.exit_code == 0) {
        GTEST_SKIP() << "this compiler keeps the name 'dot'";
    }
    EXPECT_EQ(doctor.exit_code, 1);
    EXPECT_THAT(doctor.out, HasSubstr("FAIL  --kernel " + file.string() + " builds on "));
    EXPECT_THAT(doctor.out, HasSubstr(", but no kernel 'dot' in program: the compiler renamed it '_cl_dot' ('dot' is "
                                      "an OpenCL built-in function)"));
    EXPECT_THAT(doctor.out, Not(HasSubstr("did not build")));
}

} // namespace
} // namespace duet::test
