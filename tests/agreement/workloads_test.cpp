// Every workload plugin the build made, every variant, every test case it declares, on every
// device: the result matches the CPU reference within the workload's stated tolerance, and every
// pair of devices agrees within it, CUDA against OpenCL included.
#include <map>

#include "duet_test.hpp"

namespace duet::test {
namespace {

struct WorkloadCase {
    std::string name; ///< readable: stencil1d_shared_case2
    std::shared_ptr<const Workload> workload;
    std::string variant;
    std::map<std::string, std::string> settings;
};

void PrintTo(const WorkloadCase& work, std::ostream* os) { *os << work.name; }

std::vector<WorkloadCase> workload_cases()
{
    std::vector<WorkloadCase> cases;
    for (const auto& workload : WorkloadRegistry::global().workloads()) {
        const auto info = workload->info();
        for (const auto& variant : info.variants) {
            for (std::size_t i = 0; i < info.test_cases.size(); ++i) {
                cases.push_back({sanitize(info.name + "_" + variant + "_case" + std::to_string(i)), workload, variant,
                                 info.test_cases[i]});
            }
        }
    }
    return cases;
}

std::string describe(const std::map<std::string, std::string>& settings)
{
    std::string text;
    for (const auto& [name, value] : settings) {
        text += (text.empty() ? "" : " ") + name + "=" + value;
    }
    return text;
}

class WorkloadAgreement : public ::testing::TestWithParam<std::tuple<WorkloadCase, DeviceParam>> {};

TEST_P(WorkloadAgreement, MatchesTheCpuReference)
{
    const auto& [work, param] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const auto info = work.workload->info();
    SCOPED_TRACE(info.name + " " + work.variant + " " + describe(work.settings) + " on " + param.device->selector());
    Measurement result;
    try {
        result = work.workload->run({*param.device, work.variant, Settings(info, work.settings), true, test_seed()});
    } catch (const Unsupported& error) {
        GTEST_SKIP() << error.what(); // e.g. mapped host memory on a discrete GPU's OpenCL
    }
    ASSERT_TRUE(result.verified);
    EXPECT_LE(result.max_error, result.tolerance) << result.tolerance_reason;
    EXPECT_GT(result.rate(), 0.0); // measured: the kernel phase, or the copy the rate is over
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<WorkloadCase, DeviceParam>>& info)
{
    return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadAgreement,
                         ::testing::Combine(::testing::ValuesIn(workload_cases()), ::testing::ValuesIn(device_params())),
                         case_name);

class WorkloadCrossDevice : public ::testing::TestWithParam<WorkloadCase> {};

TEST_P(WorkloadCrossDevice, EveryPairOfDevicesAgrees)
{
    const auto& work = GetParam();
    const auto devices = all_devices();
    if (devices.size() < 2) {
        GTEST_SKIP() << "needs two devices; found " << devices.size();
    }
    const auto info = work.workload->info();
    const std::uint64_t seed = test_seed(); // the same inputs on every device
    std::vector<std::pair<Device, Measurement>> results;
    for (const auto& device : devices) {
        try {
            results.emplace_back(device,
                                 work.workload->run({device, work.variant, Settings(info, work.settings), false, seed}));
        } catch (const Unsupported&) {
            // this device cannot run the variant at all; the others still compare
        }
    }
    for (std::size_t i = 1; i < results.size(); ++i) {
        const auto& [first, a] = results[0];
        const auto& [other, b] = results[i];
        SCOPED_TRACE(first.selector() + " against " + other.selector());
        const double worst = max_relative_error(b.output, a.output);
        // Each device is within tolerance of the reference, so two devices within twice that.
        EXPECT_LE(worst, 2 * a.tolerance) << a.tolerance_reason;
    }
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadCrossDevice, ::testing::ValuesIn(workload_cases()),
                         [](const auto& info) { return info.param.name; });

} // namespace
} // namespace duet::test
