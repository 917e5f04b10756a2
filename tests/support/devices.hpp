// The (backend, device) parameter list every conformance and agreement suite runs over: every
// device the global registry found, plus one placeholder per backend that did not load, whose
// tests skip with the backend's reason instead of passing.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <duet/duet.hpp>

#include "known_differences.hpp"

namespace duet::test {

struct DeviceParam {
    std::string name;             ///< readable test-name part: opencl_pthread_cpu, cuda_NVIDIA_H100, cuda_unavailable
    std::string backend;          ///< "opencl", "cuda", ...
    std::optional<Device> device; ///< empty for a placeholder
    std::string skip_reason;      ///< why a placeholder has no device
    bool fail = false;            ///< the placeholder stands for an error (the registry threw): fail, never skip
};

/// Every device of every loaded backend, then one placeholder per backend without devices.
const std::vector<DeviceParam>& device_params();
/// The same restricted to one backend (its devices, or its placeholder).
std::vector<DeviceParam> backend_params(const std::string& backend);
/// Every loaded device (no placeholders).
std::vector<Device> all_devices();

/// "opencl_pthread_cpu"-style name of a device, unique within the registry.
std::string readable_name(const Device& device);
/// Keeps letters, digits and '_' (what GoogleTest accepts in a parameter name).
std::string sanitize(const std::string& text);

/// gtest's name generator for TestWithParam<DeviceParam>.
struct ParamName {
    std::string operator()(const ::testing::TestParamInfo<DeviceParam>& info) const { return info.param.name; }
};

void PrintTo(const DeviceParam& param, std::ostream* os);

/// Skips (or fails) the current test when `param` is a placeholder. Use in a test body or SetUp.
#define DUET_REQUIRE_DEVICE(param)                                                                                     \
    do {                                                                                                               \
        if (!(param).device) {                                                                                         \
            if ((param).fail) {                                                                                        \
                GTEST_FAIL() << (param).skip_reason;                                                                   \
            }                                                                                                          \
            GTEST_SKIP() << (param).skip_reason;                                                                       \
        }                                                                                                              \
    } while (false)

/// Base fixture of the per-device suites: skips placeholders, owns one queue per test.
class DeviceTest : public ::testing::TestWithParam<DeviceParam> {
protected:
    void SetUp() override { DUET_REQUIRE_DEVICE(GetParam()); }

    const Device& device() const { return *GetParam().device; }
    const DeviceProperties& props() const { return device().properties(); }
    bool is_opencl() const { return device().backend() == "opencl"; }
    bool is_cuda() const { return device().backend() == "cuda"; }
    bool is_cpu() const { return props().type == DeviceType::cpu; }
    /// Whether `difference` shows on this test's device; when it does, the test's output says so.
    bool shows(const KnownDifference& difference) const;

    Queue& queue()
    {
        if (!queue_) {
            queue_.emplace(device().create_queue());
        }
        return *queue_;
    }

    /// Every device but this test's (of its own backend and of others), for the cross-device cases.
    std::vector<Device> other_devices() const;
    /// Why a cross-device case has nothing to run against.
    std::string no_other_device_reason() const;

private:
    std::optional<Queue> queue_;
};

} // namespace duet::test

/// INSTANTIATE over every device (and placeholder) with readable names.
#define DUET_INSTANTIATE_FOR_EACH_DEVICE(suite)                                                                        \
    INSTANTIATE_TEST_SUITE_P(Devices, suite, ::testing::ValuesIn(::duet::test::device_params()),                       \
                             ::duet::test::ParamName())
