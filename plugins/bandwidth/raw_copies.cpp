// The raw API's copies on duet's own queue and buffers, through their native handles: the figure
// duet's copies are held to. OpenCL is linked, as duet's OpenCL backend is; the CUDA driver is
// opened only when a CUDA device asks for it, so this plugin loads where no NVIDIA driver exists.
#include "bandwidth.hpp"

#include <CL/cl.h>
#include <dlfcn.h>

namespace duet::bandwidth {
namespace {

// The driver entry points used, declared as cuda.h declares them (CUresult is an enum,
// CUdeviceptr a 64-bit integer, CUcontext and CUstream pointers); the _v2 symbols are the ones
// cuda.h's macros select.
struct CudaDriver {
    int (*ctx_set_current)(void* context) = nullptr;
    int (*memcpy_htod_async)(std::uint64_t dst, const void* src, std::size_t bytes, void* stream) = nullptr;
    int (*memcpy_dtoh_async)(void* dst, std::uint64_t src, std::size_t bytes, void* stream) = nullptr;
};

// Null when the driver or a symbol is missing. Never closed: duet's CUDA backend has the same
// library open and never unloads it either.
const CudaDriver* cuda_driver()
{
    static const CudaDriver driver = [] {
        CudaDriver loaded;
        if (void* library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) {
            loaded.ctx_set_current =
                reinterpret_cast<decltype(loaded.ctx_set_current)>(dlsym(library, "cuCtxSetCurrent"));
            loaded.memcpy_htod_async =
                reinterpret_cast<decltype(loaded.memcpy_htod_async)>(dlsym(library, "cuMemcpyHtoDAsync_v2"));
            loaded.memcpy_dtoh_async =
                reinterpret_cast<decltype(loaded.memcpy_dtoh_async)>(dlsym(library, "cuMemcpyDtoHAsync_v2"));
        }
        return loaded;
    }();
    const bool complete = driver.ctx_set_current && driver.memcpy_htod_async && driver.memcpy_dtoh_async;
    return complete ? &driver : nullptr;
}

void check(const std::string& backend, long code, const char* call)
{
    if (code != 0) {
        throw Error(backend, call, code, "", std::string(call) + " failed with " + std::to_string(code));
    }
}

// The thread's current context must be the device's primary context, duet's own.
const CudaDriver* cuda_for(const Device& device)
{
    const CudaDriver* driver = cuda_driver();
    if (driver != nullptr) {
        check("cuda", driver->ctx_set_current(device.native().context), "cuCtxSetCurrent");
    }
    return driver;
}

} // namespace

bool raw_api_reachable(const Device& device)
{
    return device.backend() == "opencl" || (device.backend() == "cuda" && cuda_driver() != nullptr);
}

std::function<void()> raw_write(const Device& device, Queue& queue, const RawBuffer& dst, const void* src,
                                std::size_t bytes)
{
    if (device.backend() == "opencl") {
        const auto native_queue = static_cast<cl_command_queue>(queue.native());
        const auto memory = static_cast<cl_mem>(dst.native());
        return [=] {
            // The start marker goes to the device first, as duet's staged write sends it: the
            // driver's own host copy of pageable memory, inside this call, is then timed too.
            check("opencl", clFlush(native_queue), "clFlush");
            check("opencl", clEnqueueWriteBuffer(native_queue, memory, CL_FALSE, 0, bytes, src, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
        };
    }
    if (device.backend() == "cuda") {
        if (const CudaDriver* driver = cuda_for(device)) {
            const auto stream = queue.native();
            const auto pointer = reinterpret_cast<std::uint64_t>(dst.native());
            return [=] { check("cuda", driver->memcpy_htod_async(pointer, src, bytes, stream), "cuMemcpyHtoDAsync"); };
        }
    }
    return {};
}

std::function<void()> raw_read(const Device& device, Queue& queue, void* dst, const RawBuffer& src, std::size_t bytes)
{
    if (device.backend() == "opencl") {
        const auto native_queue = static_cast<cl_command_queue>(queue.native());
        const auto memory = static_cast<cl_mem>(src.native());
        return [=] {
            check("opencl", clEnqueueReadBuffer(native_queue, memory, CL_FALSE, 0, bytes, dst, 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
        };
    }
    if (device.backend() == "cuda") {
        if (const CudaDriver* driver = cuda_for(device)) {
            const auto stream = queue.native();
            const auto pointer = reinterpret_cast<std::uint64_t>(src.native());
            return [=] { check("cuda", driver->memcpy_dtoh_async(dst, pointer, bytes, stream), "cuMemcpyDtoHAsync"); };
        }
    }
    return {};
}

} // namespace duet::bandwidth
