// vector_add, the worked example, against its CPU reference on every device (odd, tiny, not a
// multiple of the block, large; outputs poisoned so an unwritten element fails), and every pair of
// devices against each other, CUDA against OpenCL by name when both exist.
#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include "duet_test.hpp"
#include "vector_add.hpp"
#include <duet_kernels/vector_add.hpp>

namespace duet::test {
namespace {

const vector_add::Launcher& launcher_for(const Device& device)
{
    static std::map<const void*, std::unique_ptr<vector_add::Launcher>> launchers;
    auto& slot = launchers[device.state().get()];
    if (!slot) {
        slot = std::make_unique<vector_add::Launcher>(device);
    }
    return *slot;
}

// c = a + b on `device`; `spare` extra output elements past n must keep their poison.
std::vector<float> run_vector_add(const Device& device, const std::vector<float>& a, const std::vector<float>& b,
                                  std::size_t block, std::size_t spare = 0)
{
    const std::size_t n = a.size();
    Queue queue = device.create_queue();
    Buffer<float> da = make_buffer(device, queue, a);
    Buffer<float> db = make_buffer(device, queue, b);
    Buffer<float> dc = device.alloc<float>(n + spare);
    queue.fill(BufferView<float>(dc), poison());
    launcher_for(device).run(queue, da, db, dc, n, block);
    return download(queue, dc);
}

std::vector<float> reference(const std::vector<float>& a, const std::vector<float>& b)
{
    std::vector<float> c(a.size(), poison());
    vector_add::reference(a, b, c);
    return c;
}

// --- every device against the reference ---

using SizeCase = std::tuple<DeviceParam, std::size_t, std::size_t>; // device, n, block

class VectorAddAgreement : public ::testing::TestWithParam<SizeCase> {};

TEST_P(VectorAddAgreement, MatchesTheCpuReference)
{
    const auto& [param, n, block] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const Device& device = *param.device;
    const Kernel kernel = device.build(kernels::vector_add()).kernel("vector_add");
    if (block > kernel.properties().max_block_size || block > device.properties().max_block_dims[0]) {
        GTEST_SKIP() << "block " << block << " is above what vector_add can launch with on " << device.selector()
                     << " (" << kernel.properties().max_block_size << ")";
    }
    const std::vector<float> a = random_floats(n, test_seed());
    const std::vector<float> b = random_floats(n, test_seed() + 1);
    const std::size_t spare = 13;
    const std::vector<float> c = run_vector_add(device, a, b, block, spare);
    EXPECT_TRUE(within_ulps(reference(a, b), std::span<const float>(c).first(n), tolerance::vector_add_ulps));
    EXPECT_TRUE(bitwise_equal(std::vector<float>(spare, poison()), std::span<const float>(c).last(spare)))
        << "vector_add wrote past n";
}

std::string size_case_name(const ::testing::TestParamInfo<SizeCase>& info)
{
    const auto& [param, n, block] = info.param;
    if (!param.device) {
        return param.name;
    }
    return param.name + "_n" + std::to_string(n) + "_block" + std::to_string(block);
}

// Every device × size × block; a backend that did not load appears once, to skip with its reason.
std::vector<SizeCase> size_cases()
{
    std::vector<SizeCase> cases;
    for (const DeviceParam& param : device_params()) {
        if (!param.device) {
            cases.emplace_back(param, 0, 0);
            continue;
        }
        for (const std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{255}, std::size_t{257},
                                    std::size_t{1000003}, std::size_t{1} << 20}) {
            for (const std::size_t block : {std::size_t{1}, std::size_t{64}, std::size_t{256}}) {
                cases.emplace_back(param, n, block);
            }
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Devices, VectorAddAgreement, ::testing::ValuesIn(size_cases()), size_case_name);

// --- the launcher's own refusal ---

class VectorAddLauncher : public DeviceTest {};

TEST_P(VectorAddLauncher, RefusesAnNLargerThanItsBuffers)
{
    const std::size_t n = 7;
    const std::vector<float> initial = random_floats(n, test_seed());
    Buffer<float> a = make_buffer(device(), queue(), initial);
    Buffer<float> c = make_buffer(device(), queue(), initial);
    auto error = expect_error<InvalidArgument>([&] { launcher_for(device()).run(queue(), a, a, c, n + 1, 64); });
    if (error) {
        DUET_EXPECT_MENTIONS(*error, dec(n + 1));
    }
    EXPECT_TRUE(bitwise_equal(initial, download(queue(), c)));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(VectorAddLauncher);

// --- devices against each other ---

struct DevicePair {
    std::string name;
    std::optional<Device> first;
    std::optional<Device> second;
    std::string skip_reason;
};

void PrintTo(const DevicePair& pair, std::ostream* os)
{
    *os << pair.name;
}

std::vector<DevicePair> device_pairs()
{
    const std::vector<Device> devices = all_devices();
    std::vector<DevicePair> pairs;
    for (std::size_t i = 0; i < devices.size(); ++i) {
        for (std::size_t j = i + 1; j < devices.size(); ++j) {
            pairs.push_back(
                {readable_name(devices[i]) + "_vs_" + readable_name(devices[j]), devices[i], devices[j], {}});
        }
    }
    if (pairs.empty()) {
        std::string found;
        for (const Device& device : devices) {
            found += " " + device.selector();
        }
        pairs.push_back({"fewer_than_two_devices", std::nullopt, std::nullopt,
                         "cross-device agreement needs two devices; found " + std::to_string(devices.size()) +
                             (found.empty() ? "" : ":" + found)});
    }
    return pairs;
}

::testing::AssertionResult devices_agree(const Device& first, const Device& second)
{
    const std::size_t n = 1000003;
    const std::vector<float> a = random_floats(n, test_seed());
    const std::vector<float> b = random_floats(n, test_seed() + 1);
    const std::vector<float> one = run_vector_add(first, a, b, 64);
    // Different block sizes on purpose: the geometry must not change an element's result.
    const std::size_t block = std::min<std::uint64_t>(
        256, second.build(kernels::vector_add()).kernel("vector_add").properties().max_block_size);
    const std::vector<float> two = run_vector_add(second, a, b, block);
    return within_ulps(one, two, tolerance::cross_device_ulps);
}

class CrossDeviceAgreement : public ::testing::TestWithParam<DevicePair> {};

TEST_P(CrossDeviceAgreement, VectorAddAgreesBitwise)
{
    const DevicePair& pair = GetParam();
    if (!pair.first) {
        GTEST_SKIP() << pair.skip_reason;
    }
    EXPECT_TRUE(devices_agree(*pair.first, *pair.second))
        << pair.first->selector() << " and " << pair.second->selector() << " disagree";
}

INSTANTIATE_TEST_SUITE_P(Pairs, CrossDeviceAgreement, ::testing::ValuesIn(device_pairs()),
                         [](const ::testing::TestParamInfo<DevicePair>& info) { return info.param.name; });

TEST(CrossBackendAgreement, CudaAgreesWithOpenCL)
{
    std::optional<Device> cuda;
    std::optional<Device> opencl;
    for (const Device& device : all_devices()) {
        if (device.backend() == "cuda" && !cuda) {
            cuda = device;
        }
        if (device.backend() == "opencl" && !opencl) {
            opencl = device;
        }
    }
    if (!cuda || !opencl) {
        std::string reason = "needs a CUDA and an OpenCL device;";
        for (const DeviceParam& param : device_params()) {
            if (!param.device) {
                reason += " " + param.skip_reason + ";";
            }
        }
        reason += cuda ? " no OpenCL device found" : opencl ? " no CUDA device found" : " neither found";
        GTEST_SKIP() << reason;
    }
    EXPECT_TRUE(devices_agree(*cuda, *opencl)) << cuda->selector() << " and " << opencl->selector() << " disagree";
}

} // namespace
} // namespace duet::test
