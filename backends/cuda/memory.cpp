// Device memory (cuMemAlloc, cuMemAllocPitch) and page-locked host memory (cuMemHostAlloc,
// cuMemHostRegister), with the device pointer through which kernels read mapped memory.
#include "common.hpp"

#include <memory>

namespace duet::backend::cuda {

duet_status buffer_create(duet_device device, std::size_t bytes, duet_buffer* buffer)
{
    return guard([&] {
        ContextScope scope(*device);
        auto created = std::make_unique<duet_buffer_s>();
        created->device = device;
        check(driver().cuMemAlloc(&created->pointer, bytes), "cuMemAlloc");
        *buffer = created.release();
    });
}

duet_status buffer_create_pitched(duet_device device, std::size_t width_bytes, std::size_t rows, duet_buffer* buffer,
                                  std::size_t* pitch)
{
    return guard([&] {
        ContextScope scope(*device);
        auto created = std::make_unique<duet_buffer_s>();
        created->device = device;
        // 16-byte elements: the pitch then suits the widest vector loads as well as floats.
        check(driver().cuMemAllocPitch(&created->pointer, pitch, width_bytes, rows, 16), "cuMemAllocPitch");
        *buffer = created.release();
    });
}

duet_status buffer_release(duet_buffer buffer)
{
    return guard([&] { delete buffer; });
}

duet_status buffer_native(duet_buffer buffer, void** native)
{
    return guard([&] { *native = reinterpret_cast<void*>(buffer->pointer); });
}

duet_status host_alloc(duet_device device, std::size_t bytes, duet_host_memory_kind kind, duet_host_memory* memory,
                       void** pointer)
{
    return guard([&] {
        // PORTABLE: pinned for every context, as any duet device may copy from it.
        unsigned flags = CU_MEMHOSTALLOC_PORTABLE;
        if (kind == DUET_HOST_WRITE_COMBINED)
            flags |= CU_MEMHOSTALLOC_WRITECOMBINED;
        else if (kind == DUET_HOST_MAPPED)
            flags |= CU_MEMHOSTALLOC_DEVICEMAP;
        else if (kind != DUET_HOST_PINNED)
            fail(DUET_ERROR_INVALID_ARGUMENT, "unknown host memory kind " + std::to_string(static_cast<int>(kind)));
        ContextScope scope(*device);
        auto created = std::make_unique<duet_host_memory_s>();
        created->device = device;
        check(driver().cuMemHostAlloc(&created->pointer, bytes, flags), "cuMemHostAlloc");
        *pointer = created->pointer;
        *memory = created.release();
    });
}

duet_status host_register(duet_device device, void* pointer, std::size_t bytes, duet_host_memory* memory)
{
    return guard([&] {
        ContextScope scope(*device);
        auto created = std::make_unique<duet_host_memory_s>();
        created->device = device;
        created->registered = true;
        check(driver().cuMemHostRegister(pointer, bytes, CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP),
              "cuMemHostRegister");
        created->pointer = pointer;
        *memory = created.release();
    });
}

duet_status host_release(duet_host_memory memory)
{
    return guard([&] { delete memory; });
}

duet_status host_device_buffer(duet_host_memory memory, duet_buffer* buffer)
{
    return guard([&] {
        ContextScope scope(*memory->device);
        auto created = std::make_unique<duet_buffer_s>();
        created->device = memory->device;
        created->owned = false;
        check(driver().cuMemHostGetDevicePointer(&created->pointer, memory->pointer, 0), "cuMemHostGetDevicePointer");
        *buffer = created.release();
    });
}

} // namespace duet::backend::cuda

using duet::backend::cuda::driver;

duet_buffer_s::~duet_buffer_s()
{
    if (owned && pointer != 0 && driver().cuCtxSetCurrent(device->context) == CUDA_SUCCESS)
        driver().cuMemFree(pointer);
}

duet_host_memory_s::~duet_host_memory_s()
{
    if (pointer == nullptr || driver().cuCtxSetCurrent(device->context) != CUDA_SUCCESS)
        return;
    if (registered)
        driver().cuMemHostUnregister(pointer);
    else
        driver().cuMemFreeHost(pointer);
}
