// Shared by every file of the CUDA backend: the driver API loaded at run time (so the plugin
// loads, and says why CUDA is unavailable, on machines with no driver), the objects behind the
// ABI's opaque handles, CUresult translation, and the ABI slots backend.cpp collects.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "edge.hpp"

/// Every driver call the backend makes, resolved once through cuGetProcAddress for the CUDA
/// version duet was built with; the member names are the header's, so calls read as usual.
#define DUET_CUDA_DRIVER_FUNCTIONS(X)                                                                                  \
    X(cuInit)                                                                                                          \
    X(cuDriverGetVersion)                                                                                              \
    X(cuGetErrorName)                                                                                                  \
    X(cuGetErrorString)                                                                                                \
    X(cuDeviceGetCount)                                                                                                \
    X(cuDeviceGet)                                                                                                     \
    X(cuDeviceGetName)                                                                                                 \
    X(cuDeviceGetAttribute)                                                                                            \
    X(cuDeviceTotalMem)                                                                                                \
    X(cuDeviceGetPCIBusId)                                                                                             \
    X(cuDevicePrimaryCtxRetain)                                                                                        \
    X(cuCtxGetCurrent)                                                                                                 \
    X(cuCtxSetCurrent)                                                                                                 \
    X(cuStreamCreate)                                                                                                  \
    X(cuStreamDestroy)                                                                                                 \
    X(cuStreamSynchronize)                                                                                             \
    X(cuStreamWaitEvent)                                                                                               \
    X(cuEventCreate)                                                                                                   \
    X(cuEventDestroy)                                                                                                  \
    X(cuEventRecord)                                                                                                   \
    X(cuEventSynchronize)                                                                                              \
    X(cuEventQuery)                                                                                                    \
    X(cuEventElapsedTime)                                                                                              \
    X(cuMemAlloc)                                                                                                      \
    X(cuMemAllocPitch)                                                                                                 \
    X(cuMemFree)                                                                                                       \
    X(cuMemHostAlloc)                                                                                                  \
    X(cuMemFreeHost)                                                                                                   \
    X(cuMemHostRegister)                                                                                               \
    X(cuMemHostUnregister)                                                                                             \
    X(cuMemHostGetDevicePointer)                                                                                       \
    X(cuMemcpyHtoDAsync)                                                                                               \
    X(cuMemcpyDtoHAsync)                                                                                               \
    X(cuMemcpyDtoDAsync)                                                                                               \
    X(cuMemcpy3DAsync)                                                                                                 \
    X(cuMemsetD8Async)                                                                                                 \
    X(cuMemsetD16Async)                                                                                                \
    X(cuMemsetD32Async)                                                                                                \
    X(cuMemsetD2D32Async)                                                                                              \
    X(cuModuleLoadData)                                                                                                \
    X(cuModuleUnload)                                                                                                  \
    X(cuModuleGetFunction)                                                                                             \
    X(cuModuleGetFunctionCount)                                                                                        \
    X(cuModuleEnumerateFunctions)                                                                                      \
    X(cuFuncGetName)                                                                                                   \
    X(cuFuncGetAttribute)                                                                                              \
    X(cuFuncSetAttribute)                                                                                              \
    X(cuFuncGetParamInfo)                                                                                              \
    X(cuLaunchKernel)

namespace duet::backend::cuda {

struct Driver {
#define DUET_DECLARE(name) decltype(&::name) name = nullptr;
    DUET_CUDA_DRIVER_FUNCTIONS(DUET_DECLARE)
#undef DUET_DECLARE
    int version = 0; ///< cuDriverGetVersion: 13000 for CUDA 13.0
};

/// The loaded driver; only valid after initialize() succeeded.
const Driver& driver();

/// "NVRTC 13.0" when NVRTC can be loaded, else empty; part of the version the cache keys on.
std::string nvrtc_version();

/// "CUDA_ERROR_OUT_OF_MEMORY" for 2, from the driver itself.
const char* error_name(CUresult code);

/// Raises the failure of `call`; an empty message becomes "<call> failed: <name> (<code>): <text>".
[[noreturn]] void fail_native(CUresult code, const char* call, std::string message = {});

/// Inline and branch-only on success: it sits on every enqueue of the launch path.
inline void check(CUresult code, const char* call)
{
    if (code != CUDA_SUCCESS) [[unlikely]]
        fail_native(code, call);
}

} // namespace duet::backend::cuda

// The handle objects live in the global namespace because the ABI header declares them there.

struct duet_device_s {
    CUdevice device = 0;
    CUcontext context = nullptr; ///< the device's primary context, retained for the process
    std::string name;
    int compute_major = 0;
    int compute_minor = 0;
};

/// Makes the device's primary context current on this thread for the length of a call; most
/// driver calls act on the current context. Cheap when it already is.
class ContextScope {
public:
    explicit ContextScope(const duet_device_s& device);
};

struct duet_queue_s {
    duet_device_s* device = nullptr;
    CUstream stream = nullptr;
    ~duet_queue_s();
};

struct duet_buffer_s {
    duet_device_s* device = nullptr;
    CUdeviceptr pointer = 0;
    bool owned = true; ///< false for a device view of host memory, freed with that memory
    ~duet_buffer_s();
};

struct duet_host_memory_s {
    duet_device_s* device = nullptr;
    void* pointer = nullptr;
    bool registered = false; ///< cuMemHostRegister'ed user memory, unregistered rather than freed
    ~duet_host_memory_s();
};

struct duet_event_s {
    duet_device_s* device = nullptr;
    CUevent event = nullptr;
    ~duet_event_s();
};

struct duet_program_s {
    duet_device_s* device = nullptr;
    CUmodule module = nullptr;
    std::string binary;       ///< what was loaded (cubin from NVRTC, or the fatbin), for the cache
    std::string kernel_names; ///< ';'-separated
    ~duet_program_s();
};

struct duet_kernel_s {
    duet_device_s* device = nullptr;
    CUfunction function = nullptr;
    std::string name;
    std::vector<std::size_t> param_sizes; ///< from cuFuncGetParamInfo; empty when not introspectable
    bool params_known = false;
    std::uint64_t max_block_size = 0;
    std::uint64_t static_local_memory = 0;
    std::mutex shared_limit_mutex;
    std::size_t dynamic_shared_limit = 48 * 1024; ///< raised by cuFuncSetAttribute on demand
};

namespace duet::backend::cuda {

// The ABI slots, each defined in the file named after its object.

// device.cpp
duet_status initialize();
duet_status version(const char** text);
duet_status device_count(std::uint32_t* count);
duet_status device_get(std::uint32_t index, duet_device* device);
duet_status device_properties(duet_device device, duet_device_properties* properties);
duet_status device_raw_properties(duet_device device, duet_property_sink sink, void* context);
duet_status device_native(duet_device device, void** native_device, void** native_context);
duet_status device_program_format(duet_device device, std::uint32_t index, duet_program_format* format);

// queue.cpp
duet_status queue_create(duet_device device, duet_queue* queue);
duet_status queue_release(duet_queue queue);
duet_status queue_finish(duet_queue queue);
duet_status queue_write(duet_queue queue, duet_buffer dst, std::size_t offset, const void* src, std::size_t bytes);
duet_status queue_read(duet_queue queue, void* dst, duet_buffer src, std::size_t offset, std::size_t bytes);
duet_status queue_copy(duet_queue queue, duet_buffer dst, std::size_t dst_offset, duet_buffer src,
                       std::size_t src_offset, std::size_t bytes);
duet_status queue_fill(duet_queue queue, duet_buffer dst, std::size_t offset, std::size_t bytes, const void* pattern,
                       std::size_t pattern_size);
duet_status queue_write_rect(duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, const void* src,
                             const duet_rect_side* src_side, const duet_extent* extent);
duet_status queue_read_rect(duet_queue queue, void* dst, const duet_rect_side* dst_side, duet_buffer src,
                            const duet_rect_side* src_side, const duet_extent* extent);
duet_status queue_copy_rect(duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, duet_buffer src,
                            const duet_rect_side* src_side, const duet_extent* extent);
duet_status queue_launch(duet_queue queue, duet_kernel kernel, const duet_launch_range* range,
                         const duet_kernel_arg* args, std::uint32_t arg_count);
duet_status queue_record(duet_queue queue, duet_event* event);
duet_status queue_wait(duet_queue queue, duet_event event);
duet_status queue_native(duet_queue queue, void** native);

// memory.cpp
duet_status buffer_create(duet_device device, std::size_t bytes, duet_buffer* buffer);
duet_status buffer_create_pitched(duet_device device, std::size_t width_bytes, std::size_t rows, duet_buffer* buffer,
                                  std::size_t* pitch);
duet_status buffer_release(duet_buffer buffer);
duet_status buffer_native(duet_buffer buffer, void** native);
duet_status host_alloc(duet_device device, std::size_t bytes, duet_host_memory_kind kind, duet_host_memory* memory,
                       void** pointer);
duet_status host_register(duet_device device, void* pointer, std::size_t bytes, duet_host_memory* memory);
duet_status host_release(duet_host_memory memory);
duet_status host_device_buffer(duet_host_memory memory, duet_buffer* buffer);

// event.cpp
duet_status event_release(duet_event event);
duet_status event_wait(duet_event event);
duet_status event_query(duet_event event, int* complete);
duet_status event_elapsed_ms(duet_event start, duet_event end, double* milliseconds);

// program.cpp
duet_status program_create(duet_device device, duet_program_format format, const void* data, std::size_t size,
                           const char* options, duet_program* program);
duet_status program_release(duet_program program);
duet_status program_binary(duet_program program, void (*sink)(void* context, const void* data, std::size_t size),
                           void* context);
duet_status program_kernel_names(duet_program program, const char** names);

// kernel.cpp
duet_status kernel_create(duet_program program, const char* name, duet_kernel* kernel);
duet_status kernel_release(duet_kernel kernel);
duet_status kernel_limits(duet_kernel kernel, std::uint64_t* max_block_size, std::uint64_t* static_local_memory);

} // namespace duet::backend::cuda
