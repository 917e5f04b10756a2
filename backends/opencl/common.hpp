// Shared by every file of the OpenCL backend: the objects behind the ABI's opaque handles, CL
// error failures, clGet*Info helpers, the ABI slots, and what common/backend.cpp needs to build
// the table: the state, the API's name, the extensions (none).
#pragma once

#include <CL/cl.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "backend_state.hpp"
#include "edge.hpp"
#include "handle.hpp"
#include "status.hpp"

namespace duet::backend::opencl {

/// What the arguments of one kernel take, so that a value is never passed where the kernel
/// dereferences a pointer. Read from the driver when the program is built from source, and carried
/// in the program's binary, since a driver keeps no argument info for a program loaded from one.
struct KernelArguments {
    cl_uint count = 0;
    /// CL_KERNEL_ARG_ADDRESS_QUALIFIER and CL_KERNEL_ARG_TYPE_NAME of each argument; both empty
    /// when the driver did not say, and then only the count (and the driver, the sizes) is checked.
    std::vector<cl_kernel_arg_address_qualifier> qualifiers;
    std::vector<std::string> types;
};

/// cl_khr_command_buffer on one device: its entry points, resolved for the device's platform, or
/// why the device cannot record. Declared here rather than taken from cl_ext.h, since newer headers
/// hide the provisional extension behind CL_ENABLE_BETA_EXTENSIONS and its version 0.9.5 added a
/// properties list to the copy and fill commands: the device's version says which form it takes.
struct CommandBuffers {
    using Buffer = struct CommandBufferObject*;
    std::string unsupported;         ///< why the device cannot record, naming it; empty when it can
    bool command_properties = false; ///< 0.9.5 on: every clCommand*KHR takes a properties list
    cl_ulong flags = 0;              ///< CL_COMMAND_BUFFER_SIMULTANEOUS_USE_KHR, needed before 0.9.8
    Buffer(CL_API_CALL* create)(cl_uint, const cl_command_queue*, const cl_ulong*, cl_int*) = nullptr;
    cl_int(CL_API_CALL* finalize)(Buffer) = nullptr;
    cl_int(CL_API_CALL* release)(Buffer) = nullptr;
    cl_int(CL_API_CALL* enqueue)(cl_uint, cl_command_queue*, Buffer, cl_uint, const cl_event*, cl_event*) = nullptr;
    /// clCommandNDRangeKernelKHR, clCommandCopyBufferKHR, clCommandCopyBufferRectKHR and
    /// clCommandFillBufferKHR, called through record_command in the device's form.
    void* launch = nullptr;
    void* copy = nullptr;
    void* copy_rect = nullptr;
    void* fill = nullptr;
};

/// The host memory the driver moves without staging: what host_alloc gave and host_register
/// named, by where each range starts, of every device (NVIDIA's driver copies another context's
/// pinned memory at pinned speed: the staged copies between GPUs read it). Transfers from
/// anywhere else are pageable.
class PinnedRanges {
public:
    void add(const void* start, std::size_t bytes);
    /// One registration of that range; another of the same range stays.
    void remove(const void* start, std::size_t bytes);
    /// [host, host + bytes) lies within one range.
    bool hold(const void* host, std::size_t bytes) const;

private:
    mutable std::mutex mutex_;
    /// Every registration, nested or repeated ones included: a few, so a scan finds the range.
    std::vector<std::pair<const char*, std::size_t>> ranges_;
};

/// The process's one set (memory.cpp).
PinnedRanges& pinned_ranges();

/// A queue's pinned slots for pageable transfers, made on its first (queue.cpp).
class Staging;

} // namespace duet::backend::opencl

// The handle objects live in the global namespace because the ABI header declares them there.
// Each owns its native object and releases it when deleted (Handle: none is copyable).

struct duet_device_s : duet::backend::Handle {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    cl_context context = nullptr;
    cl_command_queue mapping_queue = nullptr; ///< in-order, for mapping and unmapping host memory
    std::string platform_name;
    std::uint32_t opencl_major = 0;
    std::uint32_t opencl_minor = 0;
    std::uint32_t base_address_alignment = 0; ///< bytes
    bool nv_attributes = false;               ///< cl_nv_device_attribute_query is present
    /// cl_nv_compiler_options: -cl-nv-verbose puts ptxas's register counts in the build log.
    bool nv_compiler_options = false;
    bool lists_command_buffers = false;    ///< cl_khr_command_buffer is present (sequence.cpp)
    std::uint64_t max_block_size = 0;      ///< CL_DEVICE_MAX_WORK_GROUP_SIZE
    std::uint32_t registers_per_block = 0; ///< CL_DEVICE_REGISTERS_PER_BLOCK_NV; 0 elsewhere
    std::uint32_t warp_width = 0;          ///< CL_DEVICE_WARP_SIZE_NV; 0 elsewhere
    /// CL_DEVICE_HOST_UNIFIED_MEMORY: only then do kernels see host memory in place (zero-copy).
    bool host_unified_memory = false;
    /// Looked up on the device's first recording (sequence.cpp).
    std::once_flag command_buffers_once;
    duet::backend::opencl::CommandBuffers command_buffers;

    ~duet_device_s();
};

/// A command buffer, recording or finalised; it retains the queue it was created for.
struct duet_sequence_s : duet::backend::Handle {
    const duet::backend::opencl::CommandBuffers* api = nullptr;
    duet::backend::opencl::CommandBuffers::Buffer buffer = nullptr;
    cl_command_queue queue = nullptr; ///< recorded for; replays there unless another is named
    bool recorded = false;            ///< a command is in it, and last_sync_point is that command's
    cl_uint last_sync_point = 0;
    std::vector<cl_kernel> kernels; ///< each recorded launch's own copy of its kernel

    ~duet_sequence_s();
};

struct duet_queue_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    cl_command_queue queue = nullptr;
    /// The command buffer the queue's commands go to, between queue_begin_recording and queue_end_recording.
    std::unique_ptr<duet_sequence_s> recording;
    std::unique_ptr<duet::backend::opencl::Staging> staging; ///< made on the first pageable transfer
    std::mutex staging_mutex;                                ///< held while `staging` is made

    ~duet_queue_s();
};

struct duet_buffer_s : duet::backend::Handle {
    cl_mem memory = nullptr;

    ~duet_buffer_s();
};

struct duet_host_memory_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    cl_mem memory = nullptr;
    void* mapped = nullptr;       ///< the host pointer while mapped; registered memory is never mapped
    const void* pinned = nullptr; ///< its range in pinned_ranges(), where it is there
    std::size_t pinned_bytes = 0;

    ~duet_host_memory_s();
};

struct duet_event_s : duet::backend::Handle {
    cl_event event = nullptr;

    ~duet_event_s();
};

struct duet_program_s : duet::backend::Handle {
    duet_device_s* device = nullptr;
    cl_program program = nullptr;
    std::string kernel_names; ///< CL_PROGRAM_KERNEL_NAMES, ';'-separated
    std::string options;      ///< what clBuildProgram was given, when it built
    /// Every kernel's arguments, by kernel name; program_binary records them beside the driver's binary.
    std::map<std::string, duet::backend::opencl::KernelArguments, std::less<>> kernel_arguments;
    /// Registers a work-item, by kernel name, where the compiler's log gave them (NVIDIA's); recorded likewise.
    std::map<std::string, std::uint32_t, std::less<>> kernel_registers;

    ~duet_program_s();
};

struct duet_kernel_s : duet::backend::Handle {
    cl_kernel kernel = nullptr;
    std::string name;
    /// clSetKernelArg stores arguments in the kernel object, so setting them and enqueueing must
    /// not interleave between two threads launching the same kernel.
    std::mutex launch_mutex;
    duet::backend::opencl::KernelArguments arguments;
    duet_kernel_properties properties{};

    ~duet_kernel_s();
};

namespace duet::backend::opencl {

/// How messages name the API.
inline constexpr const char* api_name = "OpenCL";

/// The devices and version initialize() found.
BackendState<duet_device_s>& state();

/// Pinned host memory, kept mapped and in pinned_ranges(): host_alloc's, and a queue's staging
/// slots (memory.cpp).
std::unique_ptr<duet_host_memory_s> pinned_host_memory(duet_device_s& device, std::size_t bytes);

duet_status kernel_parameters(duet_kernel kernel, void (*sink)(void*, const char*, const char*), void* context);

/// What OpenCL reports and CUDA does not: each kernel parameter's address space and type.
inline const Extension extensions[] = {
    {DUET_EXTENSION_KERNEL_PARAMETERS, reinterpret_cast<duet_function>(&kernel_parameters)},
};

/// "CL_INVALID_WORK_GROUP_SIZE" for -54; "unknown OpenCL error" for codes no header names.
const char* error_name(cl_int code);

/// Raises the failure of `call`; an empty message becomes "<call> failed: <name> (<code>)".
[[noreturn]] void fail_native(cl_int code, const char* call, std::string message = {});

/// Inline and branch-only on success: it sits on every enqueue of the launch path.
inline void check(cl_int code, const char* call)
{
    if (code != CL_SUCCESS) [[unlikely]]
        fail_native(code, call);
}

template <class Object, class Param>
using InfoQuery = cl_int(CL_API_CALL*)(Object, Param, std::size_t, void*, std::size_t*);

/// The whole answer of one clGet*Info query, or its error code.
template <class Object, class Param>
cl_int query_bytes(InfoQuery<Object, Param> query, std::type_identity_t<Object> object,
                   std::type_identity_t<Param> param, std::vector<unsigned char>& bytes)
{
    std::size_t size = 0;
    if (const cl_int code = query(object, param, 0, nullptr, &size); code != CL_SUCCESS)
        return code;
    bytes.resize(size);
    return size == 0 ? CL_SUCCESS : query(object, param, size, bytes.data(), nullptr);
}

/// A fixed-size answer; a failed query raises the failure of `call`.
template <class T, class Object, class Param>
T info(InfoQuery<Object, Param> query, std::type_identity_t<Object> object, std::type_identity_t<Param> param,
       const char* call)
{
    T value{};
    check(query(object, param, sizeof(T), &value, nullptr), call);
    return value;
}

/// A fixed-size answer from a query the device may not know (extensions, newer versions).
template <class T, class Object, class Param>
std::optional<T> optional_info(InfoQuery<Object, Param> query, std::type_identity_t<Object> object,
                               std::type_identity_t<Param> param)
{
    T value{};
    std::size_t size = 0;
    if (query(object, param, sizeof(T), &value, &size) != CL_SUCCESS || size != sizeof(T))
        return std::nullopt;
    return value;
}

/// A string answer without its terminating NUL.
template <class Object, class Param>
std::string info_text(InfoQuery<Object, Param> query, std::type_identity_t<Object> object,
                      std::type_identity_t<Param> param, const char* call)
{
    std::vector<unsigned char> bytes;
    check(query_bytes(query, object, param, bytes), call);
    std::string text(bytes.begin(), bytes.end());
    while (!text.empty() && text.back() == '\0')
        text.pop_back();
    return text;
}

/// Appends one command to the command buffer being recorded: `entry` is its clCommand*KHR and
/// `args` its parameters after the properties list. Each command waits for the one before (a sync
/// point), as it would on the in-order queue it was issued to. `properties` is whether this entry
/// point takes a properties list in the device's version (always for kernels).
template <class... Args>
void record_command(duet_sequence_s& sequence, void* entry, bool properties, const char* call, Args... args)
{
    using Buffer = CommandBuffers::Buffer;
    const cl_uint waits = sequence.recorded ? 1 : 0;
    const cl_uint* wait_list = sequence.recorded ? &sequence.last_sync_point : nullptr;
    cl_uint sync_point = 0;
    const cl_int code = properties
                            ? reinterpret_cast<cl_int(CL_API_CALL*)(Buffer, cl_command_queue, const cl_ulong*, Args...,
                                                                    cl_uint, const cl_uint*, cl_uint*, void**)>(entry)(
                                  sequence.buffer, nullptr, nullptr, args..., waits, wait_list, &sync_point, nullptr)
                            : reinterpret_cast<cl_int(CL_API_CALL*)(Buffer, cl_command_queue, Args..., cl_uint,
                                                                    const cl_uint*, cl_uint*, void**)>(entry)(
                                  sequence.buffer, nullptr, args..., waits, wait_list, &sync_point, nullptr);
    check(code, call);
    sequence.recorded = true;
    sequence.last_sync_point = sync_point;
}

/// A copy of `kernel` (clCloneKernel) that `sequence` owns, for one recorded launch to set its
/// arguments on.
cl_kernel recorded_kernel(duet_sequence_s& sequence, duet_kernel_s& kernel);

#include "backend_slots.inc"

} // namespace duet::backend::opencl
