// What a manifest must not get away with: expressions nested or long past the parser's limits, a
// launch count no pass could finish, files that are not regular or too large, .npy headers that lie
// or break off, values that do not fit or are not numbers, defines and reference libraries that
// would fail only after a launch, and an output nothing writes. Each is refused when the manifest
// is read, naming the file, the line, the field and the limit. (Crashes and hangs are tested on the
// duet command, in tests/cli/manifest_cli_test.cpp.)
#include <duet/manifest.hpp>
#include <duet/workload/check.hpp>

#include "duet_test.hpp"
#include "expression.hpp"
#include "manifest_files.hpp"

namespace duet::test {
namespace {

bool contains(const std::string& text, const std::string& part)
{
    return text.find(part) != std::string::npos;
}

TEST(Hardening, AnExpressionNestedPastTheLimitIsRefusedNamingIt)
{
    TempDir dir;
    const std::string deep = std::string(300, '(') + "n" + std::string(300, ')');
    auto message =
        refusal(manifest_with(dir, "count = \"n\", init = \"iota\"", "count = \"" + deep + "\", init = \"iota\""));
    EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.count:")) << message;
    EXPECT_TRUE(contains(message, "nested deeper than 256 levels")) << message;
    // Signs nest too: each is a level of the parser's recursion.
    message = refusal(manifest_with(dir, "count = \"n\", init = \"iota\"",
                                    "count = \"" + std::string(1000, '-') + "n\", init = \"iota\""));
    EXPECT_TRUE(contains(message, "nested deeper than 256 levels")) << message;
    // At the limit it is read.
    EXPECT_NO_THROW(workload::port::Expression(std::string(255, '(') + "1" + std::string(255, ')'), {}));
}

TEST(Hardening, AnExpressionLongerThanTheLimitIsRefusedWithoutQuotingIt)
{
    TempDir dir;
    std::string long_sum = "n";
    while (long_sum.size() <= 5000) {
        long_sum += " + 0";
    }
    const auto message =
        refusal(manifest_with(dir, "count = \"n\", init = \"iota\"", "count = \"" + long_sum + "\", init = \"iota\""));
    EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.count: an expression of 5001 characters; the limit "
                                  "is 4096"))
        << message;
    EXPECT_LT(message.size(), 200u) << "the expression is not repeated";
}

TEST(Hardening, ARepeatCountNoPassCouldFinishIsRefusedNamingTheLimit)
{
    TempDir dir;
    const std::string args = "args = [\"n\", \"a\", \"x\", \"y\"]\n";
    auto message = refusal(manifest_with(dir, args, args + "[repeat]\ncount = \"4611686018427387904\"\n"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:22: repeat.count: 4611686018427387904 launches a pass; the limit "
                                  "is 1000000"))
        << message;
    // Computed from the parameters: n = 1000 gives 1001000.
    message = refusal(manifest_with(dir, args, args + "[repeat]\ncount = \"n * 1001\"\n"));
    EXPECT_TRUE(contains(message, "1001000 launches a pass; the limit is 1000000")) << message;
    EXPECT_NO_THROW(workload::load_manifest(manifest_with(dir, args, args + "[repeat]\ncount = \"n * 1000\"\n")));
}

TEST(Hardening, ADirectoryWhereAFileShouldBeIsNamedAsOne)
{
    TempDir dir;
    auto message = refusal(manifest_with(dir, "source = \"saxpy.cl\"", "source = \".\""));
    EXPECT_TRUE(contains(message, "bad.duet.toml:9: opencl.source: cannot read ")) << message;
    EXPECT_TRUE(contains(message, ": not a regular file (a directory)")) << message;
    EXPECT_FALSE(contains(message, "declares")) << message;

    message = refusal(manifest_with(dir, "init = \"iota\"", "init = { file = \".\" }"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.init.file: cannot read ")) << message;
    EXPECT_TRUE(contains(message, ": not a regular file (a directory)")) << message;
    EXPECT_FALSE(contains(message, "empty")) << message;

    message = refusal(dir.path());
    EXPECT_TRUE(contains(message, "not a regular file (a directory)")) << message;
}

TEST(Hardening, AFileOverItsSizeLimitIsRefusedUnread)
{
    TempDir dir;
    // Sparse files: the limits are judged from the size, so nothing is read.
    const auto huge = [&](const std::string& name, std::uintmax_t size) {
        write(dir.path() / name, "");
        std::filesystem::resize_file(dir.path() / name, size);
    };
    huge("big.cl", (16u << 20) + 1);
    auto message = refusal(manifest_with(dir, "source = \"saxpy.cl\"", "source = \"big.cl\""));
    EXPECT_TRUE(contains(message, "bad.duet.toml:9: opencl.source: cannot read ")) << message;
    EXPECT_TRUE(contains(message, "big.cl: 16777217 bytes (16.0 MiB), over the limit of 16777216 bytes (16.0 MiB)"))
        << message;

    huge("big.bin", (1ull << 30) + 4);
    message = refusal(manifest_with(dir, "init = \"iota\"", "init = { file = \"big.bin\" }"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.init.file: cannot read ")) << message;
    EXPECT_TRUE(contains(message, "over the limit of 1073741824 bytes (1.0 GiB)")) << message;

    huge("big.duet.toml", (1u << 20) + 1);
    message = refusal(dir.path() / "big.duet.toml");
    EXPECT_TRUE(contains(message, "big.duet.toml: 1048577 bytes (1.0 MiB), over the limit of 1048576 bytes"))
        << message;
}

TEST(Hardening, AnNpyFileWhoseShapeDisagreesWithItsDataIsRefused)
{
    TempDir dir;
    const std::string floats(1000 * sizeof(float), '\0');
    const auto path = manifest_with(dir, "init = { random = [-1, 1] }", "init = { file = \"x.npy\" }");
    write(dir.path() / "x.npy", npy("<f4", "(2000,)", floats));
    auto message = refusal(path);
    EXPECT_TRUE(contains(message, "bad.duet.toml:12: buffers.x.init.file: x.npy: its shape (2000,) is 2000 elements "
                                  "of float; its data holds 4000 bytes, 1000 elements"))
        << message;
    write(dir.path() / "x.npy", npy("<f4", "(10, 100)", floats + "ab"));
    message = refusal(path);
    EXPECT_TRUE(contains(message, "its data holds 4002 bytes, not a whole number of elements")) << message;
    write(dir.path() / "x.npy", npy("<f4", "(10, x)", floats));
    message = refusal(path);
    EXPECT_TRUE(contains(message, "x.npy: the .npy header gives 'shape' as (10, x): 'x' is not a size")) << message;
    write(dir.path() / "x.npy", npy_with_header("{'descr': '<f4', 'shape': (1000,), }", floats));
    message = refusal(path);
    EXPECT_TRUE(contains(message, "x.npy: the .npy header has no 'fortran_order'")) << message;
    // A scalar's shape () is one element.
    write(dir.path() / "x.npy", npy("<f4", "()", floats));
    message = refusal(path);
    EXPECT_TRUE(contains(message, "its shape () is 1 elements")) << message;
    write(dir.path() / "x.npy", npy("<f4", "(1000,)", floats));
    EXPECT_NO_THROW(workload::load_manifest(path));
}

TEST(Hardening, ADefineThatCannotBeEvaluatedIsRefusedWhenRead)
{
    TempDir dir;
    auto message =
        refusal(manifest_with(dir, "source = \"saxpy.cl\"", "source = \"saxpy.cl\"\ndefines = { X = \"1 / 0\" }"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:10: opencl.defines.X: '1 / 0', column 3: division by zero"))
        << message;
    // For a test case: the case is named, with its values.
    message = refusal(
        manifest_with(dir, {{"name = \"saxpy\"", "name = \"saxpy\"\ntests = [{ n = 1000 }, { n = 5 }]"},
                            {"source = \"saxpy.cl\"", "source = \"saxpy.cl\"\ndefines = { X = \"100 / (n - 5)\" }"}}));
    EXPECT_TRUE(contains(message, "test case 1 ({ n = 5 }): bad.duet.toml:11: opencl.defines.X: '100 / (n - 5)', "
                                  "column 5: division by zero where n = 5"))
        << message;
}

TEST(Hardening, AReferenceLibraryThatCannotBeLoadedIsRefusedWhenRead)
{
    TempDir dir;
    const std::string args = "args = [\"n\", \"a\", \"x\", \"y\"]\n";
    auto message =
        refusal(manifest_with(dir, args, args + "[reference]\nlibrary = \"absent.so\"\nfunction = \"saxpy\"\n"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:22: reference.library: cannot read ")) << message;
    EXPECT_TRUE(contains(message, "absent.so: no such file")) << message;
    message = refusal(manifest_with(dir, args, args + "[reference]\nlibrary = \"saxpy.cl\"\nfunction = \"saxpy\"\n"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:22: reference.library: ")) << message;
    EXPECT_TRUE(contains(message, "saxpy.cl is not a shared library: it does not start as an ELF file does"))
        << message;
}

TEST(Hardening, NumbersThatAreNotFiniteOrDoNotFitAreRefusedNamingTheLimit)
{
    TempDir dir;
    // a = 2: 2e38 fits a float, 4e38 does not.
    EXPECT_NO_THROW(workload::load_manifest(manifest_with(dir, "a = { type = \"float\", value = \"a\" }",
                                                          "a = { type = \"float\", value = \"a * 1e38\" }")));
    auto message = refusal(manifest_with(dir, "a = { type = \"float\", value = \"a\" }",
                                         "a = { type = \"float\", value = \"a * 1e38 * 2\" }"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:16: scalars.a.value: 4e+38 does not fit float (at most "
                                  "3.4028234663852886e+38 in magnitude)"))
        << message;

    const std::string y = "y = { type = \"float\", count = \"n\", init = \"iota\", output = true";
    for (const std::string relative : {"-1", "nan", "inf"}) {
        message = refusal(manifest_with(dir, y, y + ", tolerance = { relative = " + relative + " }"));
        EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.tolerance.relative: ")) << message;
        EXPECT_TRUE(contains(message, ": a tolerance must be a finite number, 0 or more")) << message;
    }
    for (const std::string ulps : {"1e300", "nan", "-1", "2.5", "8388609"}) {
        message = refusal(manifest_with(dir, y, y + ", tolerance = { ulps = " + ulps + " }"));
        EXPECT_TRUE(contains(message, "bad.duet.toml:13: buffers.y.tolerance.ulps: ")) << message;
        EXPECT_TRUE(contains(message, ": must be a whole number from 0 to 8388608 for float")) << message;
    }
    EXPECT_NO_THROW(workload::load_manifest(manifest_with(dir, y, y + ", tolerance = { ulps = 8388608 }")));

    for (const std::string bounds : {"[-inf, inf]", "[0, nan]"}) {
        message = refusal(manifest_with(dir, "random = [-1, 1]", "random = " + bounds));
        EXPECT_TRUE(contains(message, "bad.duet.toml:12: buffers.x.init.random: ")) << message;
        EXPECT_TRUE(contains(message, ": the bounds must be finite numbers")) << message;
    }
}

TEST(Hardening, AnOutputNoArgumentListNamesIsRefused)
{
    TempDir dir;
    const std::string y = "y = { type = \"float\", count = \"n\", init = \"iota\", output = true }\n";
    auto message = refusal(manifest_with(dir, y, y + "z = { type = \"float\", count = \"n\", output = true }\n"));
    EXPECT_TRUE(contains(message, "bad.duet.toml:14: buffers.z: 'z' is an output, but no argument list names it: "
                                  "launch.args (line 21, the CUDA kernel's), launch.args (line 21, the OpenCL "
                                  "kernel's); nothing would write it"))
        << message;
    // The C reference takes launch.args, though both kernels take arguments of their own.
    const std::string args = "args = [\"n\", \"a\", \"x\", \"y\"]\n";
    const auto path = manifest_with(
        dir, {{"[cuda]\n", "[cuda]\n" + args},
              {"[opencl]\n", "[opencl]\n" + args},
              {"domain = [\"n\"]\nblock = [256]\n" + args, "domain = [\"n\"]\nblock = [256]\nargs = [\"n\", \"a\", "
                                                           "\"x\"]\n[reference]\nlibrary = \"lib.so\"\nfunction = "
                                                           "\"f\"\n"}});
    std::filesystem::copy_file(std::filesystem::path(DUET_PORTS_DIR) / "saxpy" / "libsaxpy_reference.so",
                               dir.path() / "lib.so");
    message = refusal(path);
    EXPECT_TRUE(contains(message, "buffers.y: 'y' is an output, but launch.args (line 22, the C reference's) does "
                                  "not name it"))
        << message;
}

class HardeningOnDevice : public DeviceTest {};

// A define that divides by zero only for the settings asked is an error naming its line, found
// before anything is built or launched: the settings break the manifest's rule
// (ManifestLimits.SettingsThatBreakTheManifestBreakItsRule), and a run asked for without the rules
// checked fails naming it.
TEST_P(HardeningOnDevice, ADefineThatDividesByZeroForTheSettingsNamesItsLine)
{
    TempDir dir;
    const auto workload = workload::load_manifest(
        manifest_with(dir, "source = \"saxpy.cl\"", "source = \"saxpy.cl\"\ndefines = { X = \"100 / (n - 5)\" }"));
    const auto info = workload->info();
    const auto run = workload::execute({workload, info, "port", Settings::without_rules(info, {{"n", "5"}}), device(),
                                        device().selector(), test_seed(), workload::Timing::once()},
                                       true);
    EXPECT_EQ(run.status, workload::Status::failed);
    EXPECT_TRUE(contains(run.reason, "bad.duet.toml:10: opencl.defines.X: '100 / (n - 5)', column 5: division by "
                                     "zero where n = 5"))
        << run.reason;
}

// PoCL renames a kernel named like an OpenCL built-in function (dot -> _cl_dot); a kernel missing
// for that reason says so.
TEST_P(HardeningOnDevice, AKernelRenamedForAnOpenClBuiltInIsNamedSo)
{
    if (!is_opencl()) {
        GTEST_SKIP() << "an OpenCL compiler's renaming";
    }
    const std::string text = "__kernel void dot(__global float* x) { x[0] = 1.0f; }\n";
    const Program program = device().build({"dot", {{ProgramFormat::opencl_c, text}}});
    if (!program.has_kernel("_cl_dot")) {
        EXPECT_NO_THROW(program.kernel("dot"));
        GTEST_SKIP() << "this compiler keeps the name 'dot'";
    }
    try {
        program.kernel("dot");
        ADD_FAILURE() << "found a kernel 'dot'";
    } catch (const Error& error) {
        EXPECT_TRUE(contains(error.message(), "no kernel 'dot' in program: the compiler renamed it '_cl_dot' ('dot' "
                                              "is an OpenCL built-in function); give the kernel another name"))
            << error.message();
    }
}

INSTANTIATE_TEST_SUITE_P(Devices, HardeningOnDevice, ::testing::ValuesIn(device_params()), ParamName());

} // namespace
} // namespace duet::test
