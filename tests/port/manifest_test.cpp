// Bad manifests: each is refused when it is read, before anything is built or launched, with a
// message that names the file, the line and the field. Each case changes one line of a good
// manifest (a SAXPY pair) and checks the whole place in the message.
#include <duet/manifest.hpp>

#include "duet_test.hpp"
#include "manifest_files.hpp"

namespace duet::test {
namespace {

TEST(Manifest, TheGoodOneIsRead)
{
    TempDir dir;
    const auto workload = workload::load_manifest(manifest_with(dir, "", ""));
    const auto info = workload->info();
    EXPECT_EQ(info.name, "saxpy");
    ASSERT_EQ(info.parameters.size(), 2u);
    EXPECT_EQ(info.parameters[0].name, "n"); // in the order written, not sorted
    EXPECT_FALSE(info.has_reference);
}

TEST(Manifest, AMissingSourceFileNamesTheField)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "source = \"saxpy.cu\"", "source = \"nope.cu\""));
    EXPECT_NE(message.find("bad.duet.toml:6: cuda.source: cannot read"), std::string::npos) << message;
    EXPECT_NE(message.find("no such file"), std::string::npos) << message;
}

TEST(Manifest, AMissingManifestIsNamed)
{
    TempDir dir;
    const auto message = refusal(dir.path() / "absent.duet.toml");
    EXPECT_NE(message.find("absent.duet.toml"), std::string::npos) << message;
    EXPECT_NE(message.find("no such file"), std::string::npos) << message;
}

TEST(Manifest, AnUnknownElementTypeListsTheKnownOnes)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "x = { type = \"float\"", "x = { type = \"float16\""));
    EXPECT_NE(message.find("bad.duet.toml:12: buffers.x.type: unknown element type 'float16'; known: float, double"),
              std::string::npos)
        << message;
}

TEST(Manifest, AnExpressionThatDoesNotParseGivesItsColumn)
{
    TempDir dir;
    const auto message =
        refusal(manifest_with(dir, "x = { type = \"float\", count = \"n\"", "x = { type = \"float\", count = \"n *\""));
    EXPECT_NE(message.find("bad.duet.toml:12: buffers.x.count:"), std::string::npos) << message;
    EXPECT_NE(message.find("column"), std::string::npos) << message;
}

TEST(Manifest, AnUnknownNameInAnExpressionListsTheParameters)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "domain = [\"n\"]", "domain = [\"m\"]"));
    EXPECT_NE(message.find("bad.duet.toml:18: launch.domain:"), std::string::npos) << message;
    EXPECT_NE(message.find("'m'"), std::string::npos) << message;
}

TEST(Manifest, ADivisionByZeroForTheDefaultsIsRefusedWhenRead)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "y = { type = \"float\", count = \"n\"",
                                               "y = { type = \"float\", count = \"n / (n - 1000)\""));
    EXPECT_NE(message.find("bad.duet.toml:13: buffers.y.count:"), std::string::npos) << message;
    EXPECT_NE(message.find("division by zero"), std::string::npos) << message;
}

TEST(Manifest, ABufferTooSmallForTheLaunchIsRefused)
{
    TempDir dir;
    const auto message = refusal(
        manifest_with(dir, "x = { type = \"float\", count = \"n\"", "x = { type = \"float\", count = \"n - 1\""));
    EXPECT_NE(message.find("bad.duet.toml:12: buffers.x.count: 999 elements is too small for the launch"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("1000 in all"), std::string::npos) << message;
}

TEST(Manifest, ASizeThatOverflowsIsRefused)
{
    TempDir dir;
    // 2^62 floats: the count fits 64 bits, its bytes do not.
    auto message = refusal(manifest_with(dir, "y = { type = \"float\", count = \"n\"",
                                         "y = { type = \"float\", count = \"4611686018427387904 + n\""));
    EXPECT_NE(message.find("bad.duet.toml:13: buffers.y.count:"), std::string::npos) << message;
    EXPECT_NE(message.find("overflow"), std::string::npos) << message;
    // n^4 = 10^12 · 10^12: the count itself overflows.
    message = refusal(manifest_with(dir, "y = { type = \"float\", count = \"n\"",
                                    "y = { type = \"float\", count = \"n * n * n * n * n * n * n\""));
    EXPECT_NE(message.find("bad.duet.toml:13: buffers.y.count:"), std::string::npos) << message;
    EXPECT_NE(message.find("overflow"), std::string::npos) << message;
}

TEST(Manifest, AnArgumentCountThatDoesNotMatchTheKernelShowsBothSignatures)
{
    TempDir dir;
    const auto message =
        refusal(manifest_with(dir, "args = [\"n\", \"a\", \"x\", \"y\"]", "args = [\"n\", \"a\", \"x\"]"));
    EXPECT_NE(message.find("bad.duet.toml:20: launch.args: the kernels do not take these arguments"), std::string::npos)
        << message;
    EXPECT_NE(message.find("takes 4 parameters; the manifest gives 3"), std::string::npos) << message;
    EXPECT_NE(message.find("CUDA saxpy (saxpy.cu:1)"), std::string::npos) << message;
    EXPECT_NE(message.find("OpenCL saxpy (saxpy.cl:1)"), std::string::npos) << message;
}

TEST(Manifest, AnElementTypeThatDiffersBetweenThePortsIsMarked)
{
    TempDir dir;
    std::string opencl = opencl_saxpy;
    opencl.replace(opencl.find("__global float* y"), 17, "__global double* y");
    const auto message = refusal(manifest_with(dir, "", "", opencl));
    EXPECT_NE(message.find("OpenCL argument 4 ('y'): takes double elements; the buffer holds float"), std::string::npos)
        << message;
    // The row of the first difference is marked, with both declarations side by side.
    const auto row = message.find("> ");
    ASSERT_NE(row, std::string::npos) << message;
    const auto line = message.substr(row, message.find('\n', row) - row);
    EXPECT_NE(line.find("float* y"), std::string::npos) << line;
    EXPECT_NE(line.find("__global double* y"), std::string::npos) << line;
}

TEST(Manifest, AConstOutputIsRefused)
{
    TempDir dir;
    std::string opencl = opencl_saxpy;
    opencl.replace(opencl.find("__global float* y"), 17, "__global const float* y");
    const auto message = refusal(manifest_with(dir, "", "", opencl));
    EXPECT_NE(message.find("takes a const pointer, but the buffer is an output"), std::string::npos) << message;
}

TEST(Manifest, AMissingEntryPointListsTheKernels)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "entry = \"saxpy\"\n[opencl]", "entry = \"daxpy\"\n[opencl]"));
    EXPECT_NE(message.find("bad.duet.toml:7: cuda.entry: saxpy.cu declares no kernel 'daxpy'; it declares saxpy"),
              std::string::npos)
        << message;
}

TEST(Manifest, AMisspeltFieldIsRefused)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "x = { type = \"float\", count", "x = { type = \"float\", cout"));
    EXPECT_NE(message.find("bad.duet.toml:12: buffers.x.cout: unknown field"), std::string::npos) << message;
}

TEST(Manifest, ATomlSyntaxErrorGivesItsLine)
{
    TempDir dir;
    const auto message = refusal(manifest_with(dir, "[scalars]", "[scalars"));
    EXPECT_NE(message.find("bad.duet.toml:14: TOML:"), std::string::npos) << message;
}

TEST(Manifest, AnNpyFileOfTheBuffersTypeIsReadAndAnotherIsRefused)
{
    TempDir dir;
    const std::string floats(1000 * sizeof(float), '\0');
    const auto path = manifest_with(dir, "init = { random = [-1, 1] }", "init = { file = \"x.npy\" }");
    write(dir.path() / "x.npy", npy("<f4", "(10, 100)", floats));
    EXPECT_NO_THROW(workload::load_manifest(path));

    write(dir.path() / "x.npy", npy("<f8", "(1000,)", floats + floats));
    auto message = refusal(path);
    EXPECT_NE(message.find("bad.duet.toml:12: buffers.x.init.file: x.npy holds elements of dtype '<f8'; the buffer's "
                           "float is '<f4'"),
              std::string::npos)
        << message;
    write(dir.path() / "x.npy", npy("<f4", "(999,)", floats.substr(4)));
    message = refusal(path);
    EXPECT_NE(message.find("bad.duet.toml:12: buffers.x: its file holds 999 elements; count is 1000"),
              std::string::npos)
        << message;
    write(dir.path() / "x.npy", "not numpy at all");
    message = refusal(path);
    EXPECT_NE(message.find("x.npy is not a .npy file"), std::string::npos) << message;
}

} // namespace
} // namespace duet::test
