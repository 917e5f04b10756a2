// Native error codes raise the same duet exception through either API. Where a condition can be
// provoked portably through the public API it is, on every device: a block the kernel does not
// take here, and elsewhere an unknown kernel name (kernel_test), a program that does not compile
// (program_test), an allocation past the device (device_test). Each backend's mapping itself
// (status.hpp) is checked code by code, without a device: no public call provokes a missing
// device, a missing compiler or a stale handle portably.
#include <cstdint>
#include <vector>

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <duet/abi/backend.h>

#include "duet_test.hpp"
#include "opencl/status.hpp"
#ifdef DUET_TEST_CUDA_STATUS
#include "cuda/status.hpp"
#endif

namespace duet::test {
namespace {

class ErrorConformance : public DeviceTest {};

TEST_P(ErrorConformance, ABlockTheKernelDoesNotTakeIsInvalidArgument)
{
    // fixed_block declares its block: exactly 64 in OpenCL (reqd_work_group_size), so 32 is wrong;
    // at most 64 in CUDA (__launch_bounds__), so 128 is. The caller's error, not a device limit.
    const std::size_t block = is_opencl() ? 32 : 128;
    const std::size_t items = 256; // a multiple of every block here: the kernel checks no bound
    const Kernel kernel = test_kernel(device(), "fixed_block");
    Buffer<float> out = device().alloc<float>(items);
    auto error = expect_error<InvalidArgument>([&] {
        queue().launch(kernel, Range::cover(items, block), out);
        queue().finish();
    });
    if (error) {
        EXPECT_EQ(error->backend(), device().backend());
    }
    // The queue goes on after the refusal.
    queue().launch(kernel, Range::cover(items, 64), out);
    queue().finish();
}

DUET_INSTANTIATE_FOR_EACH_DEVICE(ErrorConformance);

/// One class of failure: the native codes of each API that fall in it and the status both become
/// (the exception the core raises for that status is in the name).
struct Mapping {
    std::string name;
    duet_status status;
    std::vector<cl_int> opencl;
    std::vector<std::int64_t> cuda; ///< CUresult values
};

void PrintTo(const Mapping& mapping, std::ostream* os)
{
    *os << mapping.name;
}

class NativeErrorMapping : public ::testing::TestWithParam<Mapping> {};

TEST_P(NativeErrorMapping, BothBackendsGiveTheSameStatus)
{
    const Mapping& mapping = GetParam();
    for (const cl_int code : mapping.opencl) {
        EXPECT_EQ(backend::opencl::status_of(code), mapping.status) << "OpenCL code " << code;
    }
#ifdef DUET_TEST_CUDA_STATUS
    for (const std::int64_t code : mapping.cuda) {
        EXPECT_EQ(backend::cuda::status_of(static_cast<CUresult>(code)), mapping.status) << "CUresult " << code;
    }
#else
    GTEST_SKIP() << "this build has no CUDA headers; only OpenCL's codes were checked";
#endif
}

// CUresult values by number (cuda.h), so that the list reads the same without the CUDA headers.
INSTANTIATE_TEST_SUITE_P(
    Backends, NativeErrorMapping,
    ::testing::Values(Mapping{"InvalidValueIsInvalidArgument", DUET_ERROR_INVALID_ARGUMENT, {CL_INVALID_VALUE}, {1}},
                      Mapping{"InvalidWorkGroupSizeIsInvalidArgument",
                              DUET_ERROR_INVALID_ARGUMENT,
                              {CL_INVALID_WORK_GROUP_SIZE, CL_INVALID_WORK_ITEM_SIZE, CL_INVALID_GLOBAL_WORK_SIZE},
                              {1}}, // cuLaunchKernel: CUDA_ERROR_INVALID_VALUE
                      Mapping{"InvalidHandleIsInvalidArgument",
                              DUET_ERROR_INVALID_ARGUMENT,
                              {CL_INVALID_MEM_OBJECT, CL_INVALID_KERNEL, CL_INVALID_COMMAND_QUEUE, CL_INVALID_CONTEXT},
                              {400, 201}}, // CUDA_ERROR_INVALID_HANDLE, CUDA_ERROR_INVALID_CONTEXT
                      Mapping{"ForeignBinaryIsInvalidArgument",
                              DUET_ERROR_INVALID_ARGUMENT,
                              {CL_INVALID_BINARY},
                              {200, 209}}, // CUDA_ERROR_INVALID_IMAGE, CUDA_ERROR_NO_BINARY_FOR_GPU
                      Mapping{"UnknownKernelIsNotFound", DUET_ERROR_NOT_FOUND, {CL_INVALID_KERNEL_NAME}, {500}},
                      Mapping{"BuildFailureIsBuildError",
                              DUET_ERROR_BUILD,
                              {CL_BUILD_PROGRAM_FAILURE, CL_COMPILE_PROGRAM_FAILURE, CL_LINK_PROGRAM_FAILURE,
                               CL_INVALID_BUILD_OPTIONS},
                              {218, 300}}, // CUDA_ERROR_INVALID_PTX, CUDA_ERROR_INVALID_SOURCE
                      Mapping{"NoCompilerIsUnsupported",
                              DUET_ERROR_UNSUPPORTED,
                              {CL_COMPILER_NOT_AVAILABLE, CL_LINKER_NOT_AVAILABLE},
                              {801, 221}}, // CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_JIT_COMPILER_NOT_FOUND
                      Mapping{"DeviceNotFoundIsUnavailable",
                              DUET_ERROR_UNAVAILABLE,
                              {CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_AVAILABLE, CL_PLATFORM_NOT_FOUND_KHR},
                              {100, 46,
                               3}}, // CUDA_ERROR_NO_DEVICE, CUDA_ERROR_DEVICE_UNAVAILABLE, CUDA_ERROR_NOT_INITIALIZED
                      Mapping{"OutOfMemoryIsOutOfMemory",
                              DUET_ERROR_OUT_OF_MEMORY,
                              {CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY, CL_INVALID_BUFFER_SIZE},
                              {2}},
                      Mapping{"EverythingElseIsError",
                              DUET_ERROR_BACKEND,
                              {CL_OUT_OF_RESOURCES, CL_INVALID_OPERATION},
                              {719, 700}}), // CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ILLEGAL_ADDRESS
    [](const ::testing::TestParamInfo<Mapping>& info) { return info.param.name; });

} // namespace
} // namespace duet::test
