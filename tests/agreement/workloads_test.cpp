// Every workload plugin found (the build's, and any on DUET_PLUGIN_PATH), every test case it
// declares, every variant, on every device, through the code `duet test` runs
// (workload::run_test_case): each result matches the CPU reference within the workload's stated
// tolerance, the variants agree on each device, and every pair of devices agrees, CUDA against
// OpenCL included.
#include <duet/workload/check.hpp>

#include <map>

#include "duet_test.hpp"

namespace duet::test {
namespace {

struct WorkloadCase {
    std::string name; ///< readable: stencil1d_case2
    std::shared_ptr<const Workload> workload;
    std::size_t index = 0;
    std::string variant; ///< one variant, or empty for every variant
};

void PrintTo(const WorkloadCase& work, std::ostream* os)
{
    *os << work.name;
}

std::vector<WorkloadCase> workload_cases()
{
    std::vector<WorkloadCase> cases;
    for (const auto& workload : WorkloadRegistry::global().workloads()) {
        const auto info = workload->info();
        for (std::size_t i = 0; i < info.test_cases.size(); ++i) {
            cases.push_back({sanitize(info.name + "_case" + std::to_string(i)), workload, i, {}});
        }
    }
    return cases;
}

/// Every run came out ok, or the device cannot run it (unsupported, with the reason); returns
/// how many were checked.
std::size_t expect_agreement(const std::vector<workload::Run>& runs)
{
    std::size_t checked = 0;
    for (const auto& run : runs) {
        SCOPED_TRACE(workload::job_name(run.job));
        EXPECT_TRUE(run.status == workload::Status::ok || run.status == workload::Status::unsupported)
            << workload::to_string(run.status) << ": " << run.reason;
        if (run.measured()) {
            ++checked;
            EXPECT_TRUE(run.measurement.verified);
            EXPECT_EQ(run.measurement.samples.size(), 1u); // one pass: what Timing::once() asks
            EXPECT_GT(run.measurement.rate(), 0.0);        // measured: the kernel phase, or the copy
        }
    }
    return checked;
}

std::string unsupported_reasons(const std::vector<workload::Run>& runs)
{
    std::string reasons;
    for (const auto& run : runs) {
        reasons += (reasons.empty() ? " " : "; ") + workload::job_name(run.job) + ": " + run.reason;
    }
    return reasons;
}

class WorkloadAgreement : public ::testing::TestWithParam<std::tuple<WorkloadCase, DeviceParam>> {};

TEST_P(WorkloadAgreement, EveryVariantMatchesTheCpuReferenceAndTheOthers)
{
    const auto& [work, param] = GetParam();
    DUET_REQUIRE_DEVICE(param);
    const auto info = work.workload->info();
    const auto runs = workload::run_test_case(work.workload, work.index, info.variants,
                                              {{*param.device, param.device->selector()}}, test_seed());
    if (expect_agreement(runs) == 0) {
        GTEST_SKIP() << "no variant runs on this device:" << unsupported_reasons(runs);
    }
}

std::string case_name(const ::testing::TestParamInfo<std::tuple<WorkloadCase, DeviceParam>>& info)
{
    return std::get<0>(info.param).name + "_" + std::get<1>(info.param).name;
}

INSTANTIATE_TEST_SUITE_P(Workloads, WorkloadAgreement,
                         ::testing::Combine(::testing::ValuesIn(workload_cases()),
                                            ::testing::ValuesIn(device_params())),
                         case_name);

class WorkloadCrossDevice : public ::testing::TestWithParam<WorkloadCase> {};

TEST_P(WorkloadCrossDevice, EveryPairOfDevicesAgrees)
{
    const auto& work = GetParam();
    std::vector<std::pair<Device, std::string>> devices;
    for (const auto& device : all_devices()) {
        devices.emplace_back(device, device.selector());
    }
    if (devices.size() < 2) {
        GTEST_SKIP() << "needs two devices; found " << devices.size();
    }
    const auto info = work.workload->info();
    const auto runs = workload::run_test_case(work.workload, work.index, info.variants, devices, test_seed());
    expect_agreement(runs);
    // A variant compared nowhere proves nothing: at least one must have run on two devices.
    std::size_t compared = 0;
    for (const auto& run : runs) {
        compared += run.device.compared() ? 1 : 0;
    }
    if (compared == 0) {
        GTEST_SKIP() << "no variant ran on two devices:" << unsupported_reasons(runs);
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
    const RunRequest defaults{*param.device, work.variant, Settings(info, {}), true, test_seed(), {}};
    const RunRequest request{*param.device, work.variant, Settings(info, largest), true, test_seed(), {}};
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
            cases.push_back({sanitize(info.name + "_" + variant), workload, 0, variant});
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
