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
        result = run_within_limits(*work.workload, {*param.device, work.variant, Settings(info, work.settings), true, test_seed()});
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
                                 run_within_limits(*work.workload, {device, work.variant, Settings(info, work.settings), false, seed}));
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

class FootprintCheck : public DeviceTest {};

TEST_P(FootprintCheck, RefusesWhatTheDeviceOrHostCannotHold)
{
    const auto& p = device().properties();
    const auto refused = [&](const Footprint& footprint, const std::string& limit) {
        const auto error = expect_error<OutOfMemory>([&] { check_fits(footprint, device(), "test/run"); });
        ASSERT_TRUE(error);
        EXPECT_NE(error->message().find("test/run needs"), std::string::npos) << error->message();
        EXPECT_NE(error->message().find(limit), std::string::npos) << error->message();
    };
    refused({p.global_memory + 1, 1, 1}, std::to_string(p.global_memory) + " bytes");
    refused({1, p.max_allocation + 1, 1}, "largest allocation");
    if (const auto available = host_available_memory()) {
        refused({1, 1, *available * 2}, "host memory");
    }
    EXPECT_NO_THROW(check_fits({1, 1, 1}, device(), "test/run"));
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(FootprintCheck);

/// Every integer parameter at its largest: a run too large for the device or the host is refused
/// by run_within_limits before anything is drawn or allocated, so it returns at once.
class WorkloadAtItsLimits : public ::testing::TestWithParam<std::tuple<WorkloadCase, DeviceParam>> {};

TEST_P(WorkloadAtItsLimits, IsRefusedBeforeAnythingIsAllocated)
{
    const auto& [work, param] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const auto info = work.workload->info();
    std::map<std::string, std::string> largest;
    for (const auto& parameter : info.parameters) {
        if (parameter.type == WorkloadParameter::Type::integer) {
            largest[parameter.name] = std::to_string(static_cast<std::int64_t>(parameter.max));
        }
    }
    const RunRequest defaults{*param.device, work.variant, Settings(info, {}), true, test_seed()};
    const RunRequest request{*param.device, work.variant, Settings(info, largest), true, test_seed()};
    const Footprint small = work.workload->footprint(defaults);
    const Footprint large = work.workload->footprint(request);
    EXPECT_GT(small.device_bytes + small.host_bytes, 0u);
    EXPECT_GE(small.device_bytes, small.largest_buffer);
    EXPECT_GT(large.device_bytes + large.host_bytes, small.device_bytes + small.host_bytes);
    try {
        check_fits(large, *param.device, info.name);
    } catch (const OutOfMemory&) {
        const auto error = expect_error<OutOfMemory>([&] { run_within_limits(*work.workload, request); });
        ASSERT_TRUE(error);
        EXPECT_NE(error->message().find(info.name + "/" + work.variant + " needs"), std::string::npos)
            << error->message();
        return;
    }
    GTEST_SKIP() << "fits this device and host; not run at this size in a test";
}

std::vector<WorkloadCase> one_case_per_variant()
{
    std::vector<WorkloadCase> cases;
    for (const auto& workload : WorkloadRegistry::global().workloads()) {
        const auto info = workload->info();
        for (const auto& variant : info.variants) {
            cases.push_back({sanitize(info.name + "_" + variant), workload, variant, {}});
        }
    }
    return cases;
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadAtItsLimits,
                         ::testing::Combine(::testing::ValuesIn(one_case_per_variant()),
                                            ::testing::ValuesIn(device_params())),
                         case_name);

} // namespace
} // namespace duet::test
