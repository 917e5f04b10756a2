// Which duet status each OpenCL error code becomes: the same classes as backends/cuda/status.hpp,
// so that one failure raises the same duet exception through either API. A header of its own so
// that the conformance tests check the mapping without a device.
#pragma once

#include <CL/cl.h>
#include <CL/cl_ext.h>

#include <duet/abi/backend.h>

namespace duet::backend::opencl {

constexpr duet_status status_of(cl_int code)
{
    switch (code) {
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_INVALID_BUFFER_SIZE:
        return DUET_ERROR_OUT_OF_MEMORY;
    // CUDA_ERROR_INVALID_VALUE: values, launch geometry and arguments.
    case CL_INVALID_VALUE:
    case CL_INVALID_WORK_DIMENSION:
    case CL_INVALID_WORK_GROUP_SIZE:
    case CL_INVALID_WORK_ITEM_SIZE:
    case CL_INVALID_GLOBAL_OFFSET:
    case CL_INVALID_GLOBAL_WORK_SIZE:
    case CL_INVALID_ARG_INDEX:
    case CL_INVALID_ARG_VALUE:
    case CL_INVALID_ARG_SIZE:
    case CL_INVALID_KERNEL_ARGS:
    case CL_INVALID_HOST_PTR:
    // CUDA_ERROR_INVALID_HANDLE and CUDA_ERROR_INVALID_CONTEXT: objects that are not what they should be.
    case CL_INVALID_DEVICE:
    case CL_INVALID_CONTEXT:
    case CL_INVALID_COMMAND_QUEUE:
    case CL_INVALID_MEM_OBJECT:
    case CL_INVALID_PROGRAM:
    case CL_INVALID_PROGRAM_EXECUTABLE:
    case CL_INVALID_KERNEL:
    case CL_INVALID_EVENT:
    case CL_INVALID_EVENT_WAIT_LIST:
    // CUDA_ERROR_INVALID_IMAGE: a program binary for another device or driver.
    case CL_INVALID_BINARY:
        return DUET_ERROR_INVALID_ARGUMENT;
    case CL_INVALID_KERNEL_NAME: // CUDA_ERROR_NOT_FOUND from cuModuleGetFunction
        return DUET_ERROR_NOT_FOUND;
    // NVRTC's failures: the compiler's log, or its refusal of the options.
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILE_PROGRAM_FAILURE:
    case CL_LINK_PROGRAM_FAILURE:
    case CL_INVALID_BUILD_OPTIONS:
        return DUET_ERROR_BUILD;
    // CUDA_ERROR_NOT_SUPPORTED and CUDA_ERROR_JIT_COMPILER_NOT_FOUND.
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_LINKER_NOT_AVAILABLE:
        return DUET_ERROR_UNSUPPORTED;
    // CUDA_ERROR_NO_DEVICE, CUDA_ERROR_DEVICE_UNAVAILABLE.
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_PLATFORM_NOT_FOUND_KHR:
        return DUET_ERROR_UNAVAILABLE;
    default:
        return DUET_ERROR_BACKEND;
    }
}

} // namespace duet::backend::opencl
