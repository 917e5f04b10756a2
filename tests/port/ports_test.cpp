// The ports of examples/ports (SAXPY, a tiled transpose, a reduction with local memory), read from
// their manifests and run through the code `duet test` runs, on every device and across devices;
// and a deliberately wrong port, which must be reported as a disagreement at its worst element.
#include <duet/manifest.hpp>
#include <duet/workload/check.hpp>

#include <fstream>
#include <sstream>

#include "duet_test.hpp"

namespace duet::test {
namespace {

const std::filesystem::path ports = DUET_PORTS_DIR;

std::vector<std::pair<Device, std::string>> labelled(const std::vector<Device>& devices)
{
    std::vector<std::pair<Device, std::string>> found;
    for (const auto& device : devices) {
        found.emplace_back(device, device.selector());
    }
    return found;
}

/// SAXPY's manifest, CUDA kernel and C reference copied into `dir`; its OpenCL source, for the
/// test to change and write there.
std::string copy_saxpy_but_its_opencl_kernel(const TempDir& dir)
{
    for (const auto* file : {"saxpy.duet.toml", "saxpy.cu", "libsaxpy_reference.so"}) {
        std::filesystem::copy_file(ports / "saxpy" / file, dir.path() / file);
    }
    std::ifstream in(ports / "saxpy" / "saxpy.cl");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/// Runs every test case of the manifest on `devices`; every run must come out ok.
void expect_port_agrees(const std::filesystem::path& manifest, const std::vector<Device>& devices)
{
    const auto workload = workload::load_manifest(manifest);
    const auto info = workload->info();
    for (std::size_t i = 0; i < info.test_cases.size(); ++i) {
        for (const auto& run : workload::run_test_case(workload, i, info.variants, labelled(devices), test_seed())) {
            SCOPED_TRACE(workload::job_name(run.job) + " case " + std::to_string(i));
            EXPECT_EQ(run.status, workload::Status::ok) << workload::to_string(run.status) << ": " << run.reason;
            EXPECT_TRUE(run.measurement.verified);
        }
    }
}

class Port : public ::testing::TestWithParam<std::tuple<std::string, DeviceParam>> {};

TEST_P(Port, MatchesItsReference)
{
    const auto& [name, param] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    expect_port_agrees(ports / name / (name + ".duet.toml"), {*param.device});
}

INSTANTIATE_TEST_SUITE_P(Examples, Port,
                         ::testing::Combine(::testing::Values("saxpy", "transpose", "reduce"),
                                            ::testing::ValuesIn(device_params())),
                         [](const auto& info) { return std::get<0>(info.param) + "_" + std::get<1>(info.param).name; });

/// A port whose kernel adds 1 to each of n floats, u -> v, launched `steps` times with u and v
/// swapped between launches; u starts as `u_init` says. The manifest's path.
std::filesystem::path write_advance_port(const TempDir& dir, const std::string& u_init)
{
    std::ofstream(dir.path() / "advance.cu")
        << "extern \"C\" __global__ void advance(const float* u, float* v, int n)\n"
           "{ const int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) v[i] = u[i] + 1.0f; }\n";
    std::ofstream(dir.path() / "advance.cl")
        << "__kernel void advance(__global const float* u, __global float* v, int n)\n"
           "{ const int i = get_global_id(0); if (i < n) v[i] = u[i] + 1.0f; }\n";
    std::ofstream(dir.path() / "advance.duet.toml") << R"(name = "advance"
[parameters]
n = { type = "integer", default = 1000, min = 1, max = 100000 }
steps = { type = "integer", default = 3, min = 1, max = 100 }
[cuda]
source = "advance.cu"
entry = "advance"
[opencl]
source = "advance.cl"
entry = "advance"
[buffers]
u = { type = "float", count = "n", init = )" << u_init
                                                    << R"(, index = "item" }
v = { type = "float", count = "n", output = true, index = "item" }
[scalars]
n = { type = "int32", value = "n" }
[launch]
domain = ["n"]
block = [64]
args = ["u", "v", "n"]
[repeat]
count = "steps"
swap = ["u", "v"]
)";
    return dir.path() / "advance.duet.toml";
}

/// The output of one run of `steps` launches, two timed passes (the second starts from the same inputs).
std::vector<float> advance_output(const std::filesystem::path& manifest, const Device& device, int steps)
{
    const auto workload = workload::load_manifest(manifest);
    RunRequest request{device, "port", Settings(workload->info(), {{"n", "1000"}, {"steps", std::to_string(steps)}}),
                       true,   1,      {}};
    request.timing = workload::Timing::exactly(2, 0);
    return workload->run(request).output.as<float>();
}

class PortRun : public ::testing::TestWithParam<DeviceParam> {};

// [repeat] with swap, as an iterative stencil's host loop: u -> v, swap, v -> u, ...; after the
// last launch "v" names the buffer that launch wrote, whatever the count's parity.
TEST_P(PortRun, RepeatWithSwapOutputsWhatTheLastLaunchWrote)
{
    DUET_REQUIRE_DEVICE(GetParam());
    const TempDir dir;
    const auto manifest = write_advance_port(dir, "\"iota\"");
    for (const int steps : {1, 2, 3}) {
        SCOPED_TRACE("steps = " + std::to_string(steps));
        const auto output = advance_output(manifest, *GetParam().device, steps);
        ASSERT_EQ(output.size(), 1000u);
        for (std::size_t i = 0; i < output.size(); ++i) {
            ASSERT_EQ(output[i], static_cast<float>(i + steps)) << "element " << i;
        }
    }
}

// A .npy file (as numpy.save writes it) is what the kernel reads.
TEST_P(PortRun, AnNpyFileIsWhatTheKernelReads)
{
    DUET_REQUIRE_DEVICE(GetParam());
    const TempDir dir;
    std::vector<float> values(1000);
    for (std::size_t i = 0; i < values.size(); ++i) {
        values[i] = 0.25f * static_cast<float>(i) - 100.0f;
    }
    std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1000,), }";
    header.resize(117, ' ');
    header += '\n'; // 10 + 118 bytes: the data starts 64-byte aligned
    std::ofstream npy(dir.path() / "u.npy", std::ios::binary);
    npy << std::string("\x93NUMPY\x01\x00\x76\x00", 10) << header;
    npy.write(reinterpret_cast<const char*>(values.data()),
              static_cast<std::streamsize>(values.size() * sizeof(float)));
    npy.close();
    const auto output = advance_output(write_advance_port(dir, "{ file = \"u.npy\" }"), *GetParam().device, 1);
    ASSERT_EQ(output.size(), 1000u);
    for (std::size_t i = 0; i < output.size(); ++i) {
        ASSERT_EQ(output[i], values[i] + 1.0f) << "element " << i;
    }
}

// A type the source hides behind a macro is checked when the OpenCL driver reports the
// parameters (clGetKernelArgInfo): a double where the buffer is float fails the run, before it
// launches; the same macro as float runs.
TEST_P(PortRun, TheOpenClDriversParameterTypesAreCheckedWhereTheSourceHidesThem)
{
    DUET_REQUIRE_DEVICE(GetParam());
    const Device& device = *GetParam().device;
    const TempDir dir;
    std::string source = copy_saxpy_but_its_opencl_kernel(dir);
    const std::string x = "__global const float* restrict x";
    ASSERT_NE(source.find(x), std::string::npos);
    source.replace(source.find(x), x.size(), "__global const REAL* restrict x");
    for (const std::string real : {"double", "float"}) {
        SCOPED_TRACE("REAL = " + real);
        std::ofstream(dir.path() / "saxpy.cl") << "#define REAL " << real << "\n" << source;
        const auto workload = workload::load_manifest(dir.path() / "saxpy.duet.toml"); // the source cannot tell
        const auto runs =
            workload::run_test_case(workload, 1, workload->info().variants, {{device, device.selector()}}, test_seed());
        ASSERT_EQ(runs.size(), 1u);
        if (real == "double" && device.backend() == "opencl") {
            EXPECT_EQ(runs[0].status, workload::Status::failed);
            EXPECT_NE(runs[0].reason.find("OpenCL argument 1 ('x'): takes double elements; the buffer holds float"),
                      std::string::npos)
                << runs[0].reason;
            EXPECT_NE(runs[0].reason.find("driver reports them"), std::string::npos) << runs[0].reason;
        } else { // CUDA's source is unchanged
            EXPECT_EQ(runs[0].status, workload::Status::ok) << runs[0].reason;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Port, PortRun, ::testing::ValuesIn(device_params()),
                         [](const auto& info) { return info.param.name; });

TEST(Ports, EveryPairOfDevicesAgrees)
{
    const auto devices = all_devices();
    if (devices.size() < 2) {
        GTEST_SKIP() << "cross-device agreement needs two devices; found " << devices.size();
    }
    for (const auto* name : {"saxpy", "transpose", "reduce"}) {
        SCOPED_TRACE(name);
        expect_port_agrees(ports / name / (std::string(name) + ".duet.toml"), devices);
    }
}

TEST(Ports, AWrongOpenClPortIsADisagreementAtItsWorstElement)
{
    std::vector<Device> opencl;
    for (const auto& device : all_devices()) {
        if (device.backend() == "opencl") {
            opencl.push_back(device);
        }
    }
    if (opencl.empty()) {
        GTEST_SKIP() << "needs an OpenCL device";
    }
    // SAXPY's OpenCL port, off by one at element 777 alone.
    TempDir dir;
    std::string source = copy_saxpy_but_its_opencl_kernel(dir);
    const std::string right = "y[i] = a * x[i] + y[i];";
    ASSERT_NE(source.find(right), std::string::npos);
    source.replace(source.find(right), right.size(), "y[i] = a * x[i] + y[i] + (i == 777 ? 1.0f : 0.0f);");
    std::ofstream(dir.path() / "saxpy.cl") << source;

    const auto workload = workload::load_manifest(dir.path() / "saxpy.duet.toml");
    const auto info = workload->info();
    std::vector<Device> devices = all_devices();
    const auto runs = workload::run_test_case(workload, 1, info.variants, labelled(devices), test_seed()); // n = 1000
    for (const auto& run : runs) {
        SCOPED_TRACE(workload::job_name(run.job));
        if (run.job.device.backend() != "opencl") {
            EXPECT_EQ(run.status, workload::Status::ok) << run.reason;
            continue;
        }
        EXPECT_EQ(run.status, workload::Status::wrong);
        EXPECT_EQ(run.measurement.agreement.max_error_index, 777u);
        EXPECT_EQ(run.measurement.agreement.beyond_tolerance, 1u); // others may round differently (FMA)
        EXPECT_NE(run.reason.find("index 777"), std::string::npos) << run.reason;
    }
}

} // namespace
} // namespace duet::test
