// Shared by every file of the CUDA backend: the driver API loaded at run time (so the plugin
// loads, and says why CUDA is unavailable, on machines with no driver), the objects behind the
// ABI's opaque handles, CUresult failures, the ABI slots, and what common/backend.cpp needs to
// build the table: the state, the API's name, the extensions.
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "backend_state.hpp"
#include "edge.hpp"
#include "handle.hpp"
#include "status.hpp"

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
    X(cuDeviceCanAccessPeer)                                                                                           \
    X(cuCtxEnablePeerAccess)                                                                                           \
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
    X(cuMemcpyPeerAsync)                                                                                               \
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
    X(cuFuncSetCacheConfig)                                                                                            \
    X(cuFuncGetParamInfo)                                                                                              \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor)                                                                     \
    X(cuLaunchKernel)                                                                                                  \
    X(cuStreamBeginCapture)                                                                                            \
    X(cuStreamEndCapture)                                                                                              \
    X(cuGraphInstantiateWithFlags)                                                                                     \
    X(cuGraphLaunch)                                                                                                   \
    X(cuGraphExecDestroy)                                                                                              \
    X(cuGraphDestroy)

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
// Each owns its native object and releases it when deleted (Handle: none is copyable).

struct duet_device_s : duet::backend::Handle {
    CUdevice device = 0;
    CUcontext context = nullptr; ///< the device's primary context, retained for the process
    std::string name;
    int compute_major = 0;
    int compute_minor = 0;
    /// The devices whose memory this one's context has peer access to, enabled on first use (queue.cpp).
    std::mutex peers_mutex;
    std::vector<CUdevice> peers;
};

/// Makes the device's primary context current on this thread for the length of a call; most
/// driver calls act on the current context. Cheap when it already is.
class ContextScope {
public:
    explicit ContextScope(const duet_device_s& device);
};

struct duet_queue_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    CUstream stream = nullptr;
    ~duet_queue_s();
};

struct duet_buffer_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    CUdeviceptr pointer = 0;
    bool owned = true; ///< false for a device view of host memory, freed with that memory
    ~duet_buffer_s();
};

struct duet_host_memory_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    void* pointer = nullptr;
    bool registered = false; ///< cuMemHostRegister'ed user memory, unregistered rather than freed
    ~duet_host_memory_s();
};

struct duet_event_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    CUevent event = nullptr;
    ~duet_event_s();
};

struct duet_program_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    CUmodule module = nullptr;
    std::string binary;       ///< what was loaded (cubin from NVRTC, or the fatbin), for the cache
    std::string assembly;     ///< NVRTC's PTX; empty for a fatbin or a cubin loaded as it is
    std::string options;      ///< NVRTC's options, one string; empty likewise
    std::string kernel_names; ///< ';'-separated
    ~duet_program_s();
};

struct duet_kernel_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    CUfunction function = nullptr;
    std::string name;
    std::vector<std::size_t> param_sizes; ///< from cuFuncGetParamInfo; empty when not introspectable
    bool params_known = false;
    duet_kernel_properties properties{};
    std::mutex shared_limit_mutex;
    std::size_t dynamic_shared_limit = 48 * 1024; ///< raised by cuFuncSetAttribute on demand
};

/// A recorded sequence: the graph a stream capture made, instantiated once.
struct duet_sequence_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    CUgraphExec graph = nullptr;
    ~duet_sequence_s();
};

namespace duet::backend::cuda {

#include "backend_slots.inc"

/// How messages name the API.
inline constexpr const char* api_name = "CUDA";

/// The devices and version initialize() found.
BackendState<duet_device_s>& state();

duet_status kernel_set_cache_preference(duet_kernel kernel, duet_cache_preference preference);
duet_status kernel_occupancy(duet_kernel kernel, std::uint32_t block_threads, std::size_t dynamic_local,
                             std::uint32_t* blocks_per_multiprocessor);

/// cuDeviceGetAttribute, a failure raised.
int attribute(const duet_device_s& device, CUdevice_attribute which);

/// What only CUDA offers, through the extension slot.
inline const Extension extensions[] = {
    {DUET_EXTENSION_KERNEL_SET_CACHE_PREFERENCE, reinterpret_cast<duet_function>(&kernel_set_cache_preference)},
    {DUET_EXTENSION_KERNEL_OCCUPANCY, reinterpret_cast<duet_function>(&kernel_occupancy)},
};

} // namespace duet::backend::cuda
