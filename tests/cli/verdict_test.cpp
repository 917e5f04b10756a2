// The verdict end to end, with kernel pairs written into a scratch folder as a user writes them:
// no false verdict either way. A base run that others matched is checked; without a reference
// nothing claims to match one; an element no kernel wrote is never written (floats and
// integers), whatever the devices agree on; a write past an output's end that gives the poison
// back is caught; a C reference over a short output neither crashes nor passes; ULPs are shown
// where they mean something. Two devices where it needs them: PoCL's two CPU devices here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "environment.hpp"
#include "json_reader.hpp"
#include "process.hpp"

namespace duet::test {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const std::filesystem::path ports = DUET_PORTS_DIR;

/// The first device's selector; empty when there is none.
std::string first_device()
{
    const auto devices = json::parse(run_duet({"devices", "--json"}).out);
    const auto& found = devices["devices"].array();
    return found.empty() ? "" : found.front()["selector"].string();
}

#define REQUIRE_TWO_DEVICES(devices)                                                                                   \
    const auto devices = two_devices();                                                                                \
    if (!devices) {                                                                                                    \
        GTEST_SKIP() << "fewer than two devices, and PoCL gives no second";                                            \
    }

void write(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream(path) << text;
}

/// The example saxpy, copied into `dir` as `name`.duet.toml with `edit` applied to its manifest
/// (each pair: text that must be there, its replacement), the sources and C reference beside it.
std::string saxpy_copy(const TempDir& dir, const std::string& name,
                       const std::vector<std::pair<std::string, std::string>>& edits)
{
    for (const auto* file : {"saxpy.cu", "saxpy.cl", "libsaxpy_reference.so"}) {
        std::filesystem::copy_file(ports / "saxpy" / file, dir.path() / file,
                                   std::filesystem::copy_options::overwrite_existing);
    }
    std::string manifest = read_file((ports / "saxpy" / "saxpy.duet.toml").string());
    for (const auto& [from, to] : edits) {
        const auto at = manifest.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) {
            manifest.replace(at, from.size(), to);
        }
    }
    const auto path = dir.path() / (name + ".duet.toml");
    write(path, manifest);
    return path.string();
}

const std::pair<std::string, std::string> no_reference{
    "[reference]\nlibrary = \"libsaxpy_reference.so\"\nfunction = \"saxpy_reference\"", ""};
/// saxpy's own kernels as its reference, in place of the C function.
const std::pair<std::string, std::string> kernel_pair_reference{
    "[reference]\nlibrary = \"libsaxpy_reference.so\"\nfunction = \"saxpy_reference\"",
    "[reference]\ncuda = { source = \"saxpy.cu\", entry = \"saxpy\" }\nopencl = { source = \"saxpy.cl\", entry = "
    "\"saxpy\", args = [\"x\", \"y\", \"a\", \"n\"] }"};

/// saxpy's y 100 elements shorter than the launch, and no `index` to refuse it: the kernel
/// writes past its end.
const std::pair<std::string, std::string> short_y{
    "y = { type = \"float\", count = \"n\", init = { random = [-1, 1] }, index = \"item\",",
    "y = { type = \"float\", count = \"max(n - 100, 1)\", init = { random = [-1, 1] },"};
/// x as short: the kernel reads past its end too.
const std::pair<std::string, std::string> short_x{
    "x = { type = \"float\", count = \"n\", init = { random = [-1, 1] }, index = \"item\" }",
    "x = { type = \"float\", count = \"max(n - 100, 1)\", init = { random = [-1, 1] } }"};

/// The sources of a kernel `name` with the parameters given for each language and one body, as
/// name.cu and name.cl in `dir`.
void kernel_sources(const TempDir& dir, const std::string& name, const std::string& cuda_parameters,
                    const std::string& opencl_parameters, const std::string& body)
{
    write(dir.path() / (name + ".cu"), "extern \"C\" __global__ void " + name + "(" + cuda_parameters +
                                           ")\n{\n    const int i = blockIdx.x * blockDim.x + threadIdx.x;\n" + body +
                                           "}\n");
    write(dir.path() / (name + ".cl"), "__kernel void " + name + "(" + opencl_parameters +
                                           ")\n{\n    const int i = get_global_id(0);\n" + body + "}\n");
}

/// A kernel pair of one kernel over the domain n (at least 101), block 64, and its manifest.
struct KernelPair {
    std::string name;
    std::string cuda_parameters, opencl_parameters, body;
    std::string buffers, scalars; ///< the manifest's tables, a line each
    std::string args;             ///< the launch's, as TOML: "\"x\", \"n\""
    std::string more;             ///< tables after the launch: a [reference]
};

/// The pair's sources and its manifest in `dir`; the manifest's path.
std::string write_pair(const TempDir& dir, const KernelPair& pair)
{
    kernel_sources(dir, pair.name, pair.cuda_parameters, pair.opencl_parameters, pair.body);
    const auto path = dir.path() / (pair.name + ".duet.toml");
    write(path,
          "name = \"" + pair.name + "\"\ndescription = \"a kernel pair of duet's verdict tests\"\n[parameters]\n" +
              "n = { type = \"integer\", default = 1000, min = 101, max = 1048576, help = \"work-items\" }\n" +
              "[cuda]\nsource = \"" + pair.name + ".cu\"\nentry = \"" + pair.name + "\"\n[opencl]\nsource = \"" +
              pair.name + ".cl\"\nentry = \"" + pair.name + "\"\n[buffers]\n" + pair.buffers + "[scalars]\n" +
              pair.scalars + "[launch]\ndomain = [\"n\"]\nblock = [64]\nargs = [" + pair.args + "]\n" + pair.more);
    return path.string();
}

std::vector<std::string> compare_on(const TwoDevices& devices, const std::string& manifest)
{
    return {"compare", manifest, "--devices", devices.first + "," + devices.second, "--warmup", "0", "--repeats", "2"};
}

// --- A base that others matched, and no reference ---

TEST(Verdict, TheBaseOfAComparisonThatTheOthersMatchedIsCheckedWithoutAReference)
{
    REQUIRE_TWO_DEVICES(devices);
    const TempDir dir;
    const std::string manifest = saxpy_copy(dir, "noref", {no_reference});
    auto args = compare_on(*devices, manifest);
    args.insert(args.end(), {"--set", "n=1000", "--json"});
    const auto compare = run_duet(args, devices->env);
    ASSERT_EQ(compare.exit_code, 0) << compare.out << compare.err;
    const auto runs = json::parse(compare.out)["runs"];
    ASSERT_EQ(runs.array().size(), 2u);
    const auto& base = runs.array()[0];
    EXPECT_EQ(base["status"].string(), "ok") << base["reason"].string();
    EXPECT_EQ(base["device_agreement"]["confirmed_by"].string(), devices->second) << "what checked the base";
    EXPECT_TRUE(base["device_agreement"]["with"].is_null()) << "the base was compared against nothing";
    EXPECT_TRUE(base["device_agreement"]["base"].boolean());
    EXPECT_EQ(base["baseline"].string(), "") << "the base has no baseline of its own";
    EXPECT_EQ(runs.array()[1]["baseline"].string(), devices->first);
    EXPECT_TRUE(base["max_error"].is_null()) << "no reference, no error against one";

    const auto test = run_duet({"test", manifest, "--devices", devices->first + "," + devices->second}, devices->env);
    EXPECT_EQ(test.exit_code, 0) << test.out << test.err;
    EXPECT_THAT(test.out, HasSubstr("6 runs: 6 checked. All agree with each other; no CPU reference checked"));
    EXPECT_THAT(test.err, Not(HasSubstr("nothing checked")));
}

TEST(Verdict, WithoutAReferenceNothingSaysItMatchesOne)
{
    REQUIRE_TWO_DEVICES(devices);
    const TempDir dir;
    const std::string manifest = saxpy_copy(dir, "noref", {no_reference});
    const std::vector<std::string> small{"--set", "n=1000", "--warmup", "0", "--repeats", "2"};

    // One run: nothing checked its values, and it says what was checked.
    auto run_args = std::vector<std::string>{"run", manifest, "--device", devices->first};
    run_args.insert(run_args.end(), small.begin(), small.end());
    const auto run = run_duet(run_args, devices->env);
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, Not(HasSubstr("matches the CPU reference")));
    EXPECT_THAT(run.out, HasSubstr("against the CPU reference: none; saxpy has no reference"));
    EXPECT_THAT(run.out, HasSubstr("written: the sentinels past each output held both passes' poison"));
    EXPECT_THAT(run.out, HasSubstr("result: failed: nothing checked its output"));
    EXPECT_THAT(run.out, HasSubstr("kernel rate")) << "the timing is still shown";

    // bench on one device: the same; on two, the points agree with each other, not a reference.
    const std::vector<std::string> bench{"bench", manifest, "--sweep", "n=100,1000", "--repeats", "2"};
    auto alone = bench;
    alone.insert(alone.end(), {"--devices", devices->first});
    const auto one = run_duet(alone, devices->env);
    EXPECT_EQ(one.exit_code, 1) << one.out << one.err;
    EXPECT_THAT(one.out, Not(HasSubstr("match the CPU reference")));
    EXPECT_THAT(one.out, HasSubstr("2 points: 0 checked, 2 failed. Nothing was checked."));
    EXPECT_THAT(one.err, HasSubstr("nothing checked its output: the workload has no reference"));
    auto both = bench;
    both.insert(both.end(), {"--devices", devices->first + "," + devices->second});
    const auto two = run_duet(both, devices->env);
    EXPECT_EQ(two.exit_code, 0) << two.out << two.err;
    EXPECT_THAT(two.out, Not(HasSubstr("match the CPU reference")));
    EXPECT_THAT(two.out,
                HasSubstr("4 points: 4 checked. All agree with each other; no CPU reference checked their values"));
}

// --- elements never written ---

TEST(Verdict, AnElementNoKernelWroteIsNeverWrittenThoughBothDevicesAgree)
{
    REQUIRE_TWO_DEVICES(devices);
    const TempDir dir;
    const std::string manifest =
        write_pair(dir, {"scale", "const float* x, float* y, float a, int n",
                         "__global const float* x, __global float* y, float a, int n",
                         "    if (i < n - 1) {\n        y[i] = a * x[i];\n    }\n",
                         "x = { type = \"float\", count = \"n\", init = { random = [-1, 1] }, index = \"item\" }\n"
                         "y = { type = \"float\", count = \"n\", index = \"item\", output = true }\n",
                         "n = { type = \"int32\", value = \"n\" }\na = { type = \"float\", value = \"2\" }\n",
                         "\"x\", \"y\", \"a\", \"n\"", ""});
    const auto result = run_duet(compare_on(*devices, manifest), devices->env);
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    for (const auto& device : {devices->first, devices->second}) {
        EXPECT_THAT(result.err,
                    HasSubstr("scale/port on " + device + ": 1 of 1000 elements of 'y' was never written (index 999)"));
    }
    EXPECT_THAT(result.err, Not(HasSubstr("differs"))) << "the devices agree on what they wrote";
    EXPECT_THAT(result.err, Not(HasSubstr("NaN")));
    EXPECT_THAT(result.err, Not(HasSubstr("inf")));
}

TEST(Verdict, AnIntegerOutputNeitherKernelWritesIsNeverWrittenNotAnAgreement)
{
    // The reference is the same kernel pair: the integer poison it leaves in flags equals the
    // poison the kernel leaves, so only the check pass tells them from results.
    REQUIRE_TWO_DEVICES(devices);
    const TempDir dir;
    const std::string manifest =
        write_pair(dir, {"mark", "const int* x, int* y, int* flags, int n",
                         "__global const int* x, __global int* y, __global int* flags, int n",
                         "    if (i < n) {\n        y[i] = 2 * x[i];\n    }\n",
                         "x = { type = \"int32\", count = \"n\", init = { random = [-100, 100] }, index = \"item\" }\n"
                         "y = { type = \"int32\", count = \"n\", index = \"item\", output = true }\n"
                         "flags = { type = \"int32\", count = \"n\", index = \"item\", output = true }\n",
                         "n = { type = \"int32\", value = \"n\" }\n", "\"x\", \"y\", \"flags\", \"n\"",
                         "[reference]\ncuda = { source = \"mark.cu\", entry = \"mark\" }\n"
                         "opencl = { source = \"mark.cl\", entry = \"mark\" }\n"});
    auto args = compare_on(*devices, manifest);
    args.push_back("--json");
    const auto result = run_duet(args, devices->env);
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    EXPECT_THAT(result.err, HasSubstr("mark/port on " + devices->first +
                                      ": 1000 of 1000 elements of 'flags' were never written (first at index 0, "
                                      "last at index 999)"));
    EXPECT_THAT(result.err, Not(HasSubstr("'y'"))) << "y was written";
    const auto document = json::parse(result.out);
    const auto& run = document["runs"].array().front();
    EXPECT_EQ(run["status"].string(), "wrong");
    EXPECT_EQ(run["writes"]["judged"].number(), 2000);
    EXPECT_EQ(run["writes"]["unwritten"].number(), 1000);
    EXPECT_EQ(run["writes"]["outputs"].array()[1]["first_at"].string(), "index 0");
}

// --- writes past the end ---

TEST(Verdict, AnInPlaceOutputWrittenPastItsEndIsCaughtThoughThePoisonComesBack)
{
    // y = a * x + y past y's end gives the NaN poison back with its payload; the check pass's
    // finite poison does not survive it. The reference is the same kernel pair, which agrees.
    REQUIRE_TWO_DEVICES(devices);
    const TempDir dir;
    std::vector<std::pair<std::string, std::string>> edits{short_y, kernel_pair_reference};
    const std::string manifest = saxpy_copy(dir, "past", edits);
    auto args = compare_on(*devices, manifest);
    args.insert(args.end(), {"--set", "n=10000"});
    const auto result = run_duet(args, devices->env);
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    EXPECT_THAT(result.err, HasSubstr("saxpy/port on " + devices->first +
                                      ": failed: [duet] a kernel wrote past the end of "
                                      "'y': the first element past it holds"));
    EXPECT_THAT(result.out, Not(HasSubstr("All agree")));

    // The same kernel within its buffers passes: an in-place output's values are not poison.
    const std::string correct = saxpy_copy(dir, "correct", {edits.back()});
    auto ok = compare_on(*devices, correct);
    ok.insert(ok.end(), {"--set", "n=10000"});
    const auto fine = run_duet(ok, devices->env);
    EXPECT_EQ(fine.exit_code, 0) << fine.out << fine.err;
}

TEST(Verdict, ACReferenceOverAnOutputShorterThanTheLaunchNeitherCrashesNorPasses)
{
    const std::string device = first_device();
    if (device.empty()) {
        GTEST_SKIP() << "no device";
    }
    const TempDir dir;
    // The kernel writes past y's end: caught, and the C reference, which does as the kernel does,
    // is never handed a copy it can overrun.
    const std::string manifest = saxpy_copy(dir, "short", {short_x, short_y});
    const auto past =
        run_duet({"run", manifest, "--device", device, "--set", "n=1000", "--warmup", "0", "--repeats", "1"});
    EXPECT_EQ(past.exit_code, 1) << past.out << past.err;
    EXPECT_THAT(past.err, HasSubstr("a kernel wrote past the end of 'y'"));

    // A kernel that keeps within its buffers, and a C reference that runs over the whole launch:
    // the reference's writes past y's count land in duet's copy, not past it.
    // The kernel takes the reference's arguments, and m after them, which the reference leaves.
    const std::string bounded = write_pair(
        dir, {"bounded", "int n, float a, const float* x, float* y, int m",
              "int n, float a, __global const float* x, __global float* y, int m",
              "    if (i < m) {\n        y[i] = a * x[i] + y[i];\n    }\n",
              "x = { type = \"float\", count = \"n - 100\", init = { random = [-1, 1] } }\n"
              "y = { type = \"float\", count = \"n - 100\", init = { random = [-1, 1] }, output = true, tolerance = { "
              "relative = 1e-6 } }\n",
              "n = { type = \"int32\", value = \"n\" }\nm = { type = \"int32\", value = \"n - 100\" }\n"
              "a = { type = \"float\", value = \"2.5\" }\n",
              "\"n\", \"a\", \"x\", \"y\", \"m\"",
              "[reference]\nlibrary = \"libsaxpy_reference.so\"\nfunction = \"saxpy_reference\"\n"});
    const auto within = run_duet({"run", bounded, "--device", device, "--warmup", "0", "--repeats", "1"});
    EXPECT_EQ(within.exit_code, 0) << within.out << within.err;
    EXPECT_THAT(within.out, HasSubstr("result: matches the CPU reference"));
}

// --- ULPs where they mean something ---

TEST(Verdict, UlpsNearZeroAreShownAtTheToleranceScaleAndTheJsonKeepsTheRawOnes)
{
    // (x + 1) - 1 rounds x near zero to a multiple of 2^-24: thousands of x's own ULPs, within a
    // tolerance of 1e-6 relative to max(|x|, 1), and at most one ULP of 1.
    const std::string device = first_device();
    if (device.empty()) {
        GTEST_SKIP() << "no device";
    }
    const TempDir dir;
    kernel_sources(dir, "copy", "const float* x, float* y, int n", "__global const float* x, __global float* y, int n",
                   "    if (i < n) {\n        y[i] = x[i];\n    }\n");
    const std::string manifest = write_pair(
        dir,
        {"roundtrip", "const float* x, float* y, int n", "__global const float* x, __global float* y, int n",
         "    if (i < n) {\n        y[i] = (x[i] + 1.0f) - 1.0f;\n    }\n",
         "x = { type = \"float\", count = \"n\", init = { random = [-1e-6, 1e-6] }, index = \"item\" }\n"
         "y = { type = \"float\", count = \"n\", index = \"item\", output = true, tolerance = { relative = 1e-6 } }\n",
         "n = { type = \"int32\", value = \"n\" }\n", "\"x\", \"y\", \"n\"",
         "[reference]\ncuda = { source = \"copy.cu\", entry = \"copy\" }\n"
         "opencl = { source = \"copy.cl\", entry = \"copy\" }\n"});
    const std::vector<std::string> args{"compare", manifest, "--devices", device, "--warmup", "0", "--repeats", "1"};
    auto json_args = args;
    json_args.push_back("--json");
    const auto json_run = run_duet(json_args);
    ASSERT_EQ(json_run.exit_code, 0) << json_run.out << json_run.err;
    const auto document = json::parse(json_run.out);
    const auto& agreement = document["runs"].array().front()["agreement"];
    const double raw = agreement["max_ulps"].number();
    EXPECT_GT(raw, 1000);
    EXPECT_EQ(agreement["max_scaled_ulps"].number(), 1);

    const auto table = run_duet(args);
    ASSERT_EQ(table.exit_code, 0) << table.out << table.err;
    // The row ends: max error, ULPs, device Δ, variant Δ, agrees.
    EXPECT_TRUE(std::regex_search(table.out, std::regex("e-0[0-9] +1 +base +base +yes\n"))) << table.out;
    EXPECT_THAT(table.out, HasSubstr("ULPs: the largest error relative to max(|reference|, 1) in epsilons of "
                                     "the type"));
}

// --- what the verdicts say ---

const EnvChanges wrong_plugins{{"DUET_PLUGIN_PATH", DUET_TEST_WRONG_PLUGIN_DIR}};

TEST(Verdict, ARunThatDidNotCheckItsReferenceDoesNotSayThereIsNone)
{
    const std::string device = first_device();
    if (device.empty()) {
        GTEST_SKIP() << "no device";
    }
    const auto run =
        run_duet({"run", "wrong", "--variant", "unchecked", "--device", device, "--warmup", "0"}, wrong_plugins);
    EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
    EXPECT_THAT(run.out, Not(HasSubstr("has no reference")));
    EXPECT_THAT(run.out, HasSubstr("against the CPU reference: not compared; wrong has a reference, but the run did "
                                   "not check its values against it"));
    EXPECT_THAT(run.out, HasSubstr("result: WRONG: the workload did not check its result against the CPU reference"));
}

TEST(Verdict, SummariesNameWhatCheckedTheRunsAndSayEachOtherOnlyWhereRunsWereCompared)
{
    REQUIRE_TWO_DEVICES(devices);
    const TempDir dir;
    const std::vector<std::string> small{"--set", "n=1000", "--warmup", "0", "--repeats", "2"};
    const auto compare = [&](const std::string& manifest, const std::string& selectors) {
        auto args = std::vector<std::string>{"compare", manifest, "--devices", selectors};
        args.insert(args.end(), small.begin(), small.end());
        return run_duet(args, devices->env);
    };
    // One run checked and one unsupported: nothing compared two runs, so no "each other".
    EnvChanges wrong_env = devices->env;
    wrong_env.insert(wrong_plugins.begin(), wrong_plugins.end());
    const auto one_checked = run_duet({"compare", "wrong", "--variants", "drift,unsupported", "--devices",
                                       devices->first, "--set", "n=1000", "--warmup", "0", "--repeats", "2"},
                                      wrong_env);
    EXPECT_EQ(one_checked.exit_code, 0) << one_checked.out << one_checked.err;
    EXPECT_THAT(one_checked.out, HasSubstr("2 runs: 1 checked, 1 unsupported. All agree with the CPU reference.\n"));
    const std::string c_reference = saxpy_copy(dir, "cref", {});
    const auto alone = compare(c_reference, devices->first);
    EXPECT_EQ(alone.exit_code, 0) << alone.out << alone.err;
    EXPECT_THAT(alone.out, HasSubstr("1 run: 1 checked. All agree with the CPU reference.\n"));
    const auto both = compare(c_reference, devices->first + "," + devices->second);
    EXPECT_THAT(both.out, HasSubstr("2 runs: 2 checked. All agree with the CPU reference and with each other."));
    EXPECT_THAT(both.out, HasSubstr("max error: against the CPU reference;"));

    // A kernel pair as the reference is named as such, by compare and by run.
    const std::string kernels = saxpy_copy(dir, "kref", {kernel_pair_reference});
    const auto pair = compare(kernels, devices->first + "," + devices->second);
    EXPECT_EQ(pair.exit_code, 0) << pair.out << pair.err;
    EXPECT_THAT(pair.out, HasSubstr("2 runs: 2 checked. All agree with the reference kernels and with each other."));
    EXPECT_THAT(pair.out, HasSubstr("max error: against the reference kernels;"));
    EXPECT_THAT(pair.out, Not(HasSubstr("CPU reference")));
    auto run_args = std::vector<std::string>{"run", kernels, "--device", devices->first};
    run_args.insert(run_args.end(), small.begin(), small.end());
    const auto run = run_duet(run_args, devices->env);
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    EXPECT_THAT(run.out, HasSubstr("against the reference kernels: all 1000 elements are identical"));
    EXPECT_THAT(run.out, HasSubstr("result: matches the reference kernels"));
    EXPECT_THAT(run.out, Not(HasSubstr("CPU reference")));
    // The spacer is duet's, not an extra phase of the workload.
    EXPECT_TRUE(std::regex_search(run.out, std::regex("spacer .*duet's, queued before the launch"))) << run.out;
    EXPECT_THAT(run.out, Not(HasSubstr("an extra phase of this workload")));
}

TEST(Verdict, TheJsonKeepsABaseThatNoRunAgreedWith)
{
    REQUIRE_TWO_DEVICES(devices);
    EnvChanges env = devices->env;
    env.insert(wrong_plugins.begin(), wrong_plugins.end());
    // drift's second run is off by 1e-3: the base, which matches the reference, is confirmed by no one.
    const auto result = run_duet({"compare", "wrong", "--variants", "drift", "--devices",
                                  devices->first + "," + devices->second, "--set", "n=1000", "--warmup", "0", "--json"},
                                 env);
    EXPECT_EQ(result.exit_code, 1) << result.out << result.err;
    const auto document = json::parse(result.out);
    const auto& runs = document["runs"].array();
    ASSERT_EQ(runs.size(), 2u);
    const auto& base = runs[0]["device_agreement"];
    ASSERT_FALSE(base.is_null()) << "the base of the devices, though no run agreed with it";
    EXPECT_TRUE(base["base"].boolean());
    EXPECT_TRUE(base["with"].is_null());
    EXPECT_EQ(base["confirmed_by"].string(), "");
    EXPECT_TRUE(base["agreement"].is_null());
    const auto& other = runs[1]["device_agreement"];
    EXPECT_EQ(other["with"].string(), devices->first);
    EXPECT_FALSE(other["base"].boolean());
    EXPECT_EQ(runs[1]["status"].string(), "wrong");
}

} // namespace
} // namespace duet::test
