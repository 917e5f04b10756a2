// cuBLAS runs on duet's own CUDA stream and buffers through their native handles (CUstream,
// CUdeviceptr), in the device's primary context, which duet and the CUDA runtime share.
#include "duet_test.hpp"

#include "axpy_reference.hpp"

#include <cublas_v2.h>
#include <cuda.h>

namespace duet::test {
namespace {

class CublasInterop : public DeviceTest {};

TEST_P(CublasInterop, SaxpyOnDuetsStreamAndBuffers)
{
    const std::size_t n = 100003;
    const float alpha = 1.75f;
    const auto x = random_floats(n, test_seed());
    const auto y = random_floats(n, test_seed() + 1);
    auto dx = device().alloc<float>(n);
    auto dy = device().alloc<float>(n);
    queue().write(dx, x);
    queue().write(dy, y);

    cublasHandle_t handle = nullptr;
    ASSERT_EQ(cublasCreate(&handle), CUBLAS_STATUS_SUCCESS);
    ASSERT_EQ(cublasSetStream(handle, static_cast<cudaStream_t>(queue().native())), CUBLAS_STATUS_SUCCESS);
    const auto status = cublasSaxpy(handle, static_cast<int>(n), &alpha, static_cast<const float*>(dx.raw().native()),
                                    1, static_cast<float*>(dy.raw().native()), 1);
    std::vector<float> result(n, std::nanf(""));
    queue().read(result, dy); // ordered after the saxpy: the same stream
    queue().finish();
    cublasDestroy(handle);
    ASSERT_EQ(status, CUBLAS_STATUS_SUCCESS);
    expect_axpy(alpha, x, y, result);
}

INSTANTIATE_TEST_SUITE_P(CUDA, CublasInterop, ::testing::ValuesIn(backend_params("cuda")), ParamName());

} // namespace
} // namespace duet::test
