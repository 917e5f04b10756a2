// Which duet status each CUresult becomes: the same classes as backends/opencl/status.hpp, so
// that one failure raises the same duet exception through either API. A header of its own so that
// the conformance tests check the mapping without a device.
#pragma once

#include <cuda.h>

#include <duet/abi/backend.h>

namespace duet::backend::cuda {

constexpr duet_status status_of(CUresult code)
{
    switch (code) {
    case CUDA_ERROR_OUT_OF_MEMORY:
        return DUET_ERROR_OUT_OF_MEMORY;
    case CUDA_ERROR_INVALID_VALUE:
    case CUDA_ERROR_INVALID_DEVICE:
    case CUDA_ERROR_INVALID_HANDLE:
    case CUDA_ERROR_INVALID_CONTEXT:
    // A fatbin or cubin for another GPU, or damaged: CL_INVALID_BINARY.
    case CUDA_ERROR_INVALID_IMAGE:
    case CUDA_ERROR_NO_BINARY_FOR_GPU:
        return DUET_ERROR_INVALID_ARGUMENT;
    case CUDA_ERROR_NOT_FOUND:
        return DUET_ERROR_NOT_FOUND;
    // PTX the driver's compiler refuses: CL_BUILD_PROGRAM_FAILURE.
    case CUDA_ERROR_INVALID_PTX:
    case CUDA_ERROR_INVALID_SOURCE:
        return DUET_ERROR_BUILD;
    case CUDA_ERROR_NOT_SUPPORTED:
    case CUDA_ERROR_JIT_COMPILER_NOT_FOUND:
        return DUET_ERROR_UNSUPPORTED;
    case CUDA_ERROR_NO_DEVICE:
    case CUDA_ERROR_DEVICE_UNAVAILABLE:
    case CUDA_ERROR_NOT_INITIALIZED:
        return DUET_ERROR_UNAVAILABLE;
    default:
        return DUET_ERROR_BACKEND;
    }
}

} // namespace duet::backend::cuda
