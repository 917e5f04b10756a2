#include "manifest_files.hpp"

#include <duet/manifest.hpp>

#include <fstream>

namespace duet::test {

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

std::filesystem::path manifest_with(const TempDir& dir, const std::string& from, const std::string& to,
                                    const std::string& opencl)
{
    return manifest_with(dir, {{from, to}}, opencl);
}

std::filesystem::path manifest_with(const TempDir& dir, const std::vector<std::pair<std::string, std::string>>& changes,
                                    const std::string& opencl)
{
    std::string text = good_manifest;
    for (const auto& [from, to] : changes) {
        const auto at = text.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        if (at != std::string::npos) {
            text.replace(at, from.size(), to);
        }
    }
    write(dir.path() / "bad.duet.toml", text);
    write(dir.path() / "saxpy.cu", cuda_saxpy);
    write(dir.path() / "saxpy.cl", opencl);
    return dir.path() / "bad.duet.toml";
}

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

std::string npy_with_header(std::string header, const std::string& data)
{
    header.resize(((10 + header.size() + 1 + 63) / 64) * 64 - 10 - 1, ' ');
    header += '\n';
    const std::string length{static_cast<char>(header.size() & 0xff), static_cast<char>(header.size() >> 8)};
    return std::string("\x93NUMPY\x01\x00", 8) + length + header + data;
}

std::string npy(const std::string& dtype, const std::string& shape, const std::string& data)
{
    return npy_with_header("{'descr': '" + dtype + "', 'fortran_order': False, 'shape': " + shape + ", }", data);
}

} // namespace duet::test
