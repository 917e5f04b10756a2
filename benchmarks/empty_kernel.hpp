// The empty kernel built through the raw APIs, for the benchmarks that time duet's launches
// against them on the same device.
#pragma once

#include <duet/duet.hpp>

#include <duet_kernels/empty.hpp>

#include "measure.hpp"

#include <CL/cl.h>
#ifdef DUET_BENCH_CUDA
#include <cuda.h>
#endif

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace duet::bench {

inline std::string_view empty_image(duet::ProgramFormat format)
{
    for (const auto& candidate : duet::kernels::empty().images) {
        if (candidate.format == format) {
            return candidate.data;
        }
    }
    std::fprintf(stderr, "this build did not embed the empty kernel as %s\n",
                 std::string(duet::to_string(format)).c_str());
    std::exit(1);
}

/// clCreateProgramWithSource, clBuildProgram and clCreateKernel in the device's context.
inline cl_kernel opencl_empty_kernel(const duet::Device& device)
{
    const auto native = device.native();
    const auto context = static_cast<cl_context>(native.context);
    auto cl_device = static_cast<cl_device_id>(native.device);
    const auto source_text = empty_image(duet::ProgramFormat::opencl_c);
    const char* source = source_text.data();
    const std::size_t length = source_text.size();
    cl_int status = CL_SUCCESS;
    cl_program program = clCreateProgramWithSource(context, 1, &source, &length, &status);
    require(status == CL_SUCCESS, "clCreateProgramWithSource", status);
    status = clBuildProgram(program, 1, &cl_device, "", nullptr, nullptr);
    require(status == CL_SUCCESS, "clBuildProgram", status);
    cl_kernel kernel = clCreateKernel(program, "empty", &status);
    require(status == CL_SUCCESS, "clCreateKernel", status);
    return kernel;
}

#ifdef DUET_BENCH_CUDA
/// cuModuleLoadData of the fatbin and cuModuleGetFunction, the device's context made current.
inline CUfunction cuda_empty_kernel(const duet::Device& device)
{
    require(cuCtxSetCurrent(static_cast<CUcontext>(device.native().context)) == CUDA_SUCCESS, "cuCtxSetCurrent", 0);
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    const CUresult loaded = cuModuleLoadData(&module, empty_image(duet::ProgramFormat::fatbin).data());
    require(loaded == CUDA_SUCCESS, "cuModuleLoadData", loaded);
    const CUresult found = cuModuleGetFunction(&function, module, "empty");
    require(found == CUDA_SUCCESS, "cuModuleGetFunction", found);
    return function;
}
#endif

} // namespace duet::bench
