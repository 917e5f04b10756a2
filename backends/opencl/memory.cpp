// Device buffers and host memory. Pinned host memory is a CL_MEM_ALLOC_HOST_PTR buffer kept
// mapped, as NVIDIA's OpenCL guide documents; registered memory is a CL_MEM_USE_HOST_PTR buffer.
// Kernels see either in place only on devices that share memory with the host: NVIDIA's driver
// (580, H100) gives kernels a device copy that host writes never reach, so there it is refused.
#include "common.hpp"

#include <algorithm>
#include <memory>

namespace duet::backend::opencl {
namespace {

std::unique_ptr<duet_buffer_s> create_buffer(duet_device device, std::size_t bytes)
{
    auto buffer = std::make_unique<duet_buffer_s>();
    cl_int code = CL_SUCCESS;
    buffer->memory = clCreateBuffer(device->context, CL_MEM_READ_WRITE, bytes, nullptr, &code);
    check(code, "clCreateBuffer");
    return buffer;
}

} // namespace

duet_status buffer_create(duet_device device, std::size_t bytes, duet_buffer* buffer)
{
    return guard([&] { *buffer = create_buffer(device, bytes).release(); });
}

duet_status buffer_create_pitched(duet_device device, std::size_t width_bytes, std::size_t rows, duet_buffer* buffer,
                                  std::size_t* pitch)
{
    return guard([&] {
        const std::size_t alignment = device->base_address_alignment;
        const std::size_t row_pitch = (width_bytes + alignment - 1) / alignment * alignment;
        *buffer = create_buffer(device, row_pitch * rows).release();
        *pitch = row_pitch;
    });
}

duet_status buffer_release(duet_buffer buffer)
{
    return guard([&] { delete buffer; });
}

duet_status buffer_native(duet_buffer buffer, void** native)
{
    return guard([&] { *native = buffer->memory; });
}

duet_status host_alloc(duet_device device, std::size_t bytes, duet_host_memory_kind kind, duet_host_memory* memory,
                       void** pointer)
{
    return guard([&] {
        if (kind == DUET_HOST_WRITE_COMBINED)
            fail(DUET_ERROR_UNSUPPORTED, "OpenCL has no write-combined host memory (CUDA's cuMemHostAlloc "
                                         "WRITECOMBINED has no OpenCL counterpart)");
        if (kind != DUET_HOST_PINNED && kind != DUET_HOST_MAPPED)
            fail(DUET_ERROR_INVALID_ARGUMENT, "unknown host memory kind " + std::to_string(static_cast<int>(kind)));
        if (kind == DUET_HOST_MAPPED && !device->host_unified_memory)
            fail(DUET_ERROR_UNSUPPORTED,
                 "this OpenCL device has no zero-copy host memory: it does not share memory with the host "
                 "(CL_DEVICE_HOST_UNIFIED_MEMORY is false), so kernels would see a device copy of a mapped buffer "
                 "rather than the host's writes; use pinned memory and copies");

        auto host = pinned_host_memory(*device, bytes);
        *pointer = host->mapped;
        *memory = host.release();
    });
}

duet_status host_register(duet_device device, void* pointer, std::size_t bytes, duet_host_memory* memory)
{
    return guard([&] {
        auto host = std::make_unique<duet_host_memory_s>();
        host->device = device;
        cl_int code = CL_SUCCESS;
        host->memory = clCreateBuffer(device->context, CL_MEM_USE_HOST_PTR | CL_MEM_READ_WRITE, bytes, pointer, &code);
        check(code, "clCreateBuffer");
        // The driver decides what registering does; transfers from the range are left to it.
        pinned_ranges().add(pointer, bytes);
        host->pinned = pointer;
        host->pinned_bytes = bytes;
        *memory = host.release();
    });
}

duet_status host_release(duet_host_memory memory)
{
    return guard([&] { delete memory; });
}

duet_status host_device_buffer(duet_host_memory memory, duet_buffer* buffer)
{
    return guard([&] {
        if (!memory->device->host_unified_memory)
            fail(DUET_ERROR_UNSUPPORTED,
                 "kernels on this OpenCL device cannot use host memory in place: it does not share memory with the "
                 "host (CL_DEVICE_HOST_UNIFIED_MEMORY is false), so they would see a device copy that later host "
                 "writes never reach; copy through a device buffer");
        auto alias = std::make_unique<duet_buffer_s>();
        check(clRetainMemObject(memory->memory), "clRetainMemObject");
        alias->memory = memory->memory;
        *buffer = alias.release();
    });
}

std::unique_ptr<duet_host_memory_s> pinned_host_memory(duet_device_s& device, std::size_t bytes)
{
    auto host = std::make_unique<duet_host_memory_s>();
    host->device = &device;
    cl_int code = CL_SUCCESS;
    host->memory = clCreateBuffer(device.context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes, nullptr, &code);
    check(code, "clCreateBuffer");
    host->mapped = clEnqueueMapBuffer(device.mapping_queue, host->memory, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes,
                                      0, nullptr, nullptr, &code);
    check(code, "clEnqueueMapBuffer");
    pinned_ranges().add(host->mapped, bytes);
    host->pinned = host->mapped;
    host->pinned_bytes = bytes;
    return host;
}

PinnedRanges& pinned_ranges()
{
    // Never destroyed: host memory may be released while the process's statics are.
    static auto* ranges = new PinnedRanges;
    return *ranges;
}

void PinnedRanges::add(const void* start, std::size_t bytes)
{
    const std::lock_guard lock(mutex_);
    ranges_.emplace_back(static_cast<const char*>(start), bytes);
}

void PinnedRanges::remove(const void* start, std::size_t bytes)
{
    const std::lock_guard lock(mutex_);
    const auto found = std::find(ranges_.begin(), ranges_.end(), std::pair{static_cast<const char*>(start), bytes});
    if (found != ranges_.end()) {
        ranges_.erase(found);
    }
}

bool PinnedRanges::hold(const void* host, std::size_t bytes) const
{
    const auto at = reinterpret_cast<std::uintptr_t>(host);
    const std::lock_guard lock(mutex_);
    return std::any_of(ranges_.begin(), ranges_.end(), [&](const auto& range) {
        const auto start = reinterpret_cast<std::uintptr_t>(range.first);
        return at >= start && at - start <= range.second && bytes <= range.second - (at - start);
    });
}

} // namespace duet::backend::opencl

duet_buffer_s::~duet_buffer_s()
{
    if (memory)
        clReleaseMemObject(memory);
}

duet_host_memory_s::~duet_host_memory_s()
{
    if (pinned)
        duet::backend::opencl::pinned_ranges().remove(pinned, pinned_bytes);
    // Waited for, so that the pages are given back when host_release returns, not at some later
    // point of the mapping queue.
    if (mapped && clEnqueueUnmapMemObject(device->mapping_queue, memory, mapped, 0, nullptr, nullptr) == CL_SUCCESS)
        clFinish(device->mapping_queue);
    if (memory)
        clReleaseMemObject(memory);
}
