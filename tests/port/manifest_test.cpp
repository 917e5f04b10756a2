// Bad manifests: each is refused when it is read, before anything is built or launched, with a
// message that names the file, the line and the field. Each case changes one line of a good
// manifest (a SAXPY pair) and checks the whole place in the message.
#include <duet/workload/manifest.hpp>

#include <fstream>

#include "duet_test.hpp"

namespace duet::test {
namespace {

// Line numbers matter: the cases below name them.
const char* const good_manifest = R"(name = "saxpy"
[parameters]
n = { type = "integer", default = 1000, min = 1, max = 1000000000 }
a = { type = "real", default = 2.0, min = -10, max = 10 }
[cuda]
source = "saxpy.cu"
entry = "saxpy"
[opencl]
source = "saxpy.cl"
entry = "saxpy"
[buffers]
x = { type = "float", count = "n", init = { random = [-1, 1] }, index = "item" }
y = { type = "float", count = "n", init = "iota", output = true }
[scalars]
n = { type = "int32", value = "n" }
a = { type = "float", value = "a" }
[launch]
domain = ["n"]
block = [256]
args = ["n", "a", "x", "y"]
)";

const char* const cuda_saxpy = R"(extern "C" __global__ void saxpy(int n, float a, const float* x, float* y)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

const char* const opencl_saxpy = R"(__kernel void saxpy(int n, float a, __global const float* x, __global float* y)
{
    const int i = get_global_id(0);
    if (i < n) y[i] = a * x[i] + y[i];
}
)";

void write(const std::filesystem::path& path, const std::string& text)
{
    std::ofstream(path) << text;
}

/// The good manifest with `from` replaced by `to`, and its kernels, in `dir`; the manifest's path.
std::filesystem::path manifest_with(const TempDir& dir, const std::string& from, const std::string& to,
                                    const std::string& opencl = opencl_saxpy)
{
    std::string text = good_manifest;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    text.replace(at, from.size(), to);
    write(dir.path() / "bad.duet.toml", text);
    write(dir.path() / "saxpy.cu", cuda_saxpy);
    write(dir.path() / "saxpy.cl", opencl);
    return dir.path() / "bad.duet.toml";
}

/// The message of the InvalidArgument that reading `path` throws; fails the test if it does not.
std::string refusal(const std::filesystem::path& path)
{
    try {
        workload::load_manifest(path);
    } catch (const InvalidArgument& error) {
        return error.message();
    } catch (const std::exception& error) {
        ADD_FAILURE() << "not an InvalidArgument: " << error.what();
        return {};
    }
    ADD_FAILURE() << "the manifest was accepted";
    return {};
}

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

/// A .npy file (format 1.0) of `dtype` holding `data`, as numpy.save writes it.
std::string npy(const std::string& dtype, const std::string& shape, const std::string& data)
{
    std::string header = "{'descr': '" + dtype + "', 'fortran_order': False, 'shape': " + shape + ", }";
    header.resize(((10 + header.size() + 1 + 63) / 64) * 64 - 10 - 1, ' ');
    header += '\n';
    const std::string length{static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
    return std::string("\x93NUMPY\x01\x00", 8) + length + header + data;
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
