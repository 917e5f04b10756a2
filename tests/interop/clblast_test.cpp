// CLBlast runs on duet's own OpenCL queue and buffers through their native handles
// (cl_command_queue, cl_mem): the interop the vendor-BLAS references of the workloads rely on.
#include "duet_test.hpp"

#include "axpy_reference.hpp"

#include <clblast.h>

namespace duet::test {
namespace {

class ClblastInterop : public DeviceTest {};

TEST_P(ClblastInterop, AxpyOnDuetsQueueAndBuffers)
{
    const std::size_t n = 100003; // odd, not a multiple of any work-group size
    const float alpha = 1.75f;
    const auto x = random_floats(n, test_seed());
    const auto y = random_floats(n, test_seed() + 1);
    auto dx = device().alloc<float>(n);
    auto dy = device().alloc<float>(n);
    queue().write(dx, x);
    queue().write(dy, y);

    auto native_queue = static_cast<cl_command_queue>(queue().native());
    const auto status = clblast::Axpy<float>(n, alpha, static_cast<cl_mem>(dx.raw().native()), 0, 1,
                                             static_cast<cl_mem>(dy.raw().native()), 0, 1, &native_queue, nullptr);
    ASSERT_EQ(status, clblast::StatusCode::kSuccess) << "clblast::Axpy returned " << static_cast<int>(status);

    std::vector<float> result(n, std::nanf(""));
    queue().read(result, dy);
    queue().finish();
    expect_axpy(alpha, x, y, result);
}

INSTANTIATE_TEST_SUITE_P(OpenCL, ClblastInterop, ::testing::ValuesIn(backend_params("opencl")), ParamName());

} // namespace
} // namespace duet::test
