// Shared by every file of the OpenCL backend: the objects behind the ABI's opaque handles, the
// translation of CL error codes into duet statuses, clGet*Info helpers, and the ABI slots that
// backend.cpp collects into the function table.
#pragma once

#include <CL/cl.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "edge.hpp"

// The handle objects live in the global namespace because the ABI header declares them there.
// Each owns its native object and releases it when deleted; none is copyable.

struct duet_device_s {
    cl_platform_id platform = nullptr;
    cl_device_id id = nullptr;
    cl_context context = nullptr;
    cl_command_queue mapping_queue = nullptr; ///< in-order, for mapping and unmapping host memory
    std::string platform_name;
    std::uint32_t opencl_major = 0;
    std::uint32_t opencl_minor = 0;
    std::uint32_t base_address_alignment = 0; ///< bytes
    bool nv_attributes = false;               ///< cl_nv_device_attribute_query is present
    /// CL_DEVICE_HOST_UNIFIED_MEMORY: only then do kernels see host memory in place (zero-copy).
    bool host_unified_memory = false;

    duet_device_s() = default;
    duet_device_s(const duet_device_s&) = delete;
    duet_device_s& operator=(const duet_device_s&) = delete;
    ~duet_device_s();
};

struct duet_queue_s {
    cl_command_queue queue = nullptr;

    duet_queue_s() = default;
    duet_queue_s(const duet_queue_s&) = delete;
    duet_queue_s& operator=(const duet_queue_s&) = delete;
    ~duet_queue_s();
};

struct duet_buffer_s {
    cl_mem memory = nullptr;

    duet_buffer_s() = default;
    duet_buffer_s(const duet_buffer_s&) = delete;
    duet_buffer_s& operator=(const duet_buffer_s&) = delete;
    ~duet_buffer_s();
};

struct duet_host_memory_s {
    duet_device_s* device = nullptr;
    cl_mem memory = nullptr;
    void* mapped = nullptr; ///< the host pointer while mapped; registered memory is never mapped

    duet_host_memory_s() = default;
    duet_host_memory_s(const duet_host_memory_s&) = delete;
    duet_host_memory_s& operator=(const duet_host_memory_s&) = delete;
    ~duet_host_memory_s();
};

struct duet_event_s {
    cl_event event = nullptr;

    duet_event_s() = default;
    duet_event_s(const duet_event_s&) = delete;
    duet_event_s& operator=(const duet_event_s&) = delete;
    ~duet_event_s();
};

struct duet_program_s {
    duet_device_s* device = nullptr;
    cl_program program = nullptr;
    std::string kernel_names; ///< CL_PROGRAM_KERNEL_NAMES, ';'-separated

    duet_program_s() = default;
    duet_program_s(const duet_program_s&) = delete;
    duet_program_s& operator=(const duet_program_s&) = delete;
    ~duet_program_s();
};

struct duet_kernel_s {
    cl_kernel kernel = nullptr;
    std::string name;
    /// clSetKernelArg stores arguments in the kernel object, so setting them and enqueueing must
    /// not interleave between two threads launching the same kernel.
    std::mutex launch_mutex;
    cl_uint arg_count = 0;
    std::uint64_t max_block_size = 0;      ///< CL_KERNEL_WORK_GROUP_SIZE
    std::uint64_t static_local_memory = 0; ///< CL_KERNEL_LOCAL_MEM_SIZE

    duet_kernel_s() = default;
    duet_kernel_s(const duet_kernel_s&) = delete;
    duet_kernel_s& operator=(const duet_kernel_s&) = delete;
    ~duet_kernel_s();
};

namespace duet::backend::opencl {

/// "CL_INVALID_WORK_GROUP_SIZE" for -54; "unknown OpenCL error" for codes no header names.
const char* error_name(cl_int code);

/// Out-of-memory codes become DUET_ERROR_OUT_OF_MEMORY, every other failure DUET_ERROR_BACKEND.
duet_status status_of(cl_int code);

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

} // namespace duet::backend::opencl
