// Streams: copies, fills, rectangular copies, launches, events. Every enqueue is asynchronous;
// the core has checked sizes and ranges before any of these runs.
#include "common.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

namespace duet::backend::cuda {
namespace {

CUDA_MEMCPY3D rect_copy(const duet_rect_side& dst, const duet_rect_side& src, const duet_extent& extent)
{
    CUDA_MEMCPY3D copy{};
    copy.srcXInBytes = src.origin_bytes;
    copy.srcY = src.origin_row;
    copy.srcZ = src.origin_slice;
    copy.srcPitch = src.row_pitch;
    copy.srcHeight = src.rows_per_slice;
    copy.dstXInBytes = dst.origin_bytes;
    copy.dstY = dst.origin_row;
    copy.dstZ = dst.origin_slice;
    copy.dstPitch = dst.row_pitch;
    copy.dstHeight = dst.rows_per_slice;
    copy.WidthInBytes = extent.width_bytes;
    copy.Height = extent.height;
    copy.Depth = extent.depth;
    return copy;
}

void set_host(CUDA_MEMCPY3D& copy, bool source, const void* host)
{
    (source ? copy.srcMemoryType : copy.dstMemoryType) = CU_MEMORYTYPE_HOST;
    if (source)
        copy.srcHost = host;
    else
        copy.dstHost = const_cast<void*>(host);
}

void set_device(CUDA_MEMCPY3D& copy, bool source, CUdeviceptr pointer)
{
    (source ? copy.srcMemoryType : copy.dstMemoryType) = CU_MEMORYTYPE_DEVICE;
    (source ? copy.srcDevice : copy.dstDevice) = pointer;
}

[[noreturn]] void fail_argument_count(const duet_kernel_s& kernel, std::uint32_t given)
{
    fail(DUET_ERROR_INVALID_ARGUMENT,
         "kernel '" + kernel.name + "' takes " + std::to_string(kernel.param_sizes.size()) + " arguments; " +
             std::to_string(given) + " were given (a LocalMemory argument is not a CUDA kernel parameter)");
}

/// Raises the kernel's dynamic shared memory limit past the default 48 KiB when a launch asks.
void allow_dynamic_shared(duet_kernel_s& kernel, std::size_t bytes)
{
    std::lock_guard lock(kernel.shared_limit_mutex);
    if (bytes <= kernel.dynamic_shared_limit)
        return;
    check(driver().cuFuncSetAttribute(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                      static_cast<int>(bytes)),
          "cuFuncSetAttribute");
    kernel.dynamic_shared_limit = bytes;
}

/// Gives the queue's device access to `peer`'s memory, once per ordered pair: peer access is one-way,
/// granted to the current context (cuCtxEnablePeerAccess). UNSUPPORTED where the pair cannot.
void enable_peer_access(duet_device_s& device, duet_device_s& peer)
{
    std::lock_guard lock(device.peers_mutex);
    if (std::find(device.peers.begin(), device.peers.end(), peer.device) != device.peers.end())
        return;
    int possible = 0;
    check(driver().cuDeviceCanAccessPeer(&possible, device.device, peer.device), "cuDeviceCanAccessPeer");
    if (possible == 0)
        fail(DUET_ERROR_UNSUPPORTED,
             "CUDA device " + std::to_string(device.device) + " (" + device.name +
                 ") cannot access the memory of device " + std::to_string(peer.device) + " (" + peer.name +
                 ") directly (cuDeviceCanAccessPeer answers 0): copy through host memory (PeerRoute::staged)",
             "cuDeviceCanAccessPeer");
    ContextScope scope(device);
    const CUresult code = driver().cuCtxEnablePeerAccess(peer.context, 0);
    // Already enabled by someone else in this process (the runtime API, another library): as good.
    if (code != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
        if (code == CUDA_ERROR_TOO_MANY_PEERS || code == CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)
            fail(DUET_ERROR_UNSUPPORTED,
                 "CUDA device " + std::to_string(device.device) + " cannot enable peer access to device " +
                     std::to_string(peer.device) + ": " + error_name(code) +
                     " (the hardware's peer mappings are exhausted or the link refuses them)",
                 "cuCtxEnablePeerAccess", code, error_name(code));
        check(code, "cuCtxEnablePeerAccess");
    }
    device.peers.push_back(peer.device);
}

} // namespace

duet_status queue_create(duet_device device, duet_queue* queue)
{
    return guard([&] {
        ContextScope scope(*device);
        auto created = std::make_unique<duet_queue_s>();
        created->device = device;
        check(driver().cuStreamCreate(&created->stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
        *queue = created.release();
    });
}

duet_status queue_release(duet_queue queue)
{
    return guard([&] { delete queue; });
}

duet_status queue_finish(duet_queue queue)
{
    return guard([&] { check(driver().cuStreamSynchronize(queue->stream), "cuStreamSynchronize"); });
}

duet_status queue_write(duet_queue queue, duet_buffer dst, std::size_t offset, const void* src, std::size_t bytes)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        check(driver().cuMemcpyHtoDAsync(dst->pointer + offset, src, bytes, queue->stream), "cuMemcpyHtoDAsync");
    });
}

duet_status queue_read(duet_queue queue, void* dst, duet_buffer src, std::size_t offset, std::size_t bytes)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        check(driver().cuMemcpyDtoHAsync(dst, src->pointer + offset, bytes, queue->stream), "cuMemcpyDtoHAsync");
    });
}

duet_status queue_copy(duet_queue queue, duet_buffer dst, std::size_t dst_offset, duet_buffer src,
                       std::size_t src_offset, std::size_t bytes)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        check(driver().cuMemcpyDtoDAsync(dst->pointer + dst_offset, src->pointer + src_offset, bytes, queue->stream),
              "cuMemcpyDtoDAsync");
    });
}

duet_status queue_copy_peer(duet_queue queue, duet_buffer dst, std::size_t dst_offset, duet_buffer src,
                            std::size_t src_offset, std::size_t bytes)
{
    return guard([&] {
        duet_device_s& other = dst->device == queue->device ? *src->device : *dst->device;
        enable_peer_access(*queue->device, other);
        ContextScope scope(*queue->device);
        check(driver().cuMemcpyPeerAsync(dst->pointer + dst_offset, dst->device->context, src->pointer + src_offset,
                                         src->device->context, bytes, queue->stream),
              "cuMemcpyPeerAsync");
    });
}

duet_status queue_fill(duet_queue queue, duet_buffer dst, std::size_t offset, std::size_t bytes, const void* pattern,
                       std::size_t pattern_size)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        const CUdeviceptr start = dst->pointer + offset;
        const std::size_t count = bytes / pattern_size;
        switch (pattern_size) {
        case 1:
            check(driver().cuMemsetD8Async(start, *static_cast<const unsigned char*>(pattern), count, queue->stream),
                  "cuMemsetD8Async");
            return;
        case 2: {
            unsigned short value = 0;
            std::memcpy(&value, pattern, 2);
            check(driver().cuMemsetD16Async(start, value, count, queue->stream), "cuMemsetD16Async");
            return;
        }
        default:
            // A pattern of 4·k bytes is k columns of 32-bit words: one strided 2D memset each,
            // with the pattern's size as the pitch.
            for (std::size_t word = 0; word < pattern_size / 4; ++word) {
                unsigned int value = 0;
                std::memcpy(&value, static_cast<const unsigned char*>(pattern) + 4 * word, 4);
                const CUresult code = pattern_size == 4 ? driver().cuMemsetD32Async(start, value, count, queue->stream)
                                                        : driver().cuMemsetD2D32Async(start + 4 * word, pattern_size,
                                                                                      value, 1, count, queue->stream);
                check(code, pattern_size == 4 ? "cuMemsetD32Async" : "cuMemsetD2D32Async");
            }
        }
    });
}

duet_status queue_write_rect(duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, const void* src,
                             const duet_rect_side* src_side, const duet_extent* extent)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        CUDA_MEMCPY3D copy = rect_copy(*dst_side, *src_side, *extent);
        set_host(copy, true, src);
        set_device(copy, false, dst->pointer);
        check(driver().cuMemcpy3DAsync(&copy, queue->stream), "cuMemcpy3DAsync");
    });
}

duet_status queue_read_rect(duet_queue queue, void* dst, const duet_rect_side* dst_side, duet_buffer src,
                            const duet_rect_side* src_side, const duet_extent* extent)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        CUDA_MEMCPY3D copy = rect_copy(*dst_side, *src_side, *extent);
        set_device(copy, true, src->pointer);
        set_host(copy, false, dst);
        check(driver().cuMemcpy3DAsync(&copy, queue->stream), "cuMemcpy3DAsync");
    });
}

duet_status queue_copy_rect(duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, duet_buffer src,
                            const duet_rect_side* src_side, const duet_extent* extent)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        CUDA_MEMCPY3D copy = rect_copy(*dst_side, *src_side, *extent);
        set_device(copy, true, src->pointer);
        set_device(copy, false, dst->pointer);
        check(driver().cuMemcpy3DAsync(&copy, queue->stream), "cuMemcpy3DAsync");
    });
}

duet_status queue_launch(duet_queue queue, duet_kernel kernel, const duet_launch_range* range,
                         const duet_kernel_arg* args, std::uint32_t arg_count)
{
    return guard([&] {
        // Kernel parameters point at their values; buffers at the CUdeviceptr inside the handle.
        constexpr std::size_t inline_params = 32;
        std::array<void*, inline_params> inline_storage;
        std::vector<void*> heap_storage;
        void** params = inline_storage.data();
        if (arg_count > inline_params) {
            heap_storage.resize(arg_count);
            params = heap_storage.data();
        }
        std::uint32_t param_count = 0;
        std::size_t dynamic_shared = 0;
        for (std::uint32_t i = 0; i < arg_count; ++i) {
            const duet_kernel_arg& arg = args[i];
            std::size_t size = 0;
            switch (arg.kind) {
            case DUET_ARG_LOCAL:
                dynamic_shared = arg.size;
                continue;
            case DUET_ARG_BUFFER:
                params[param_count] = &arg.buffer->pointer;
                size = sizeof(CUdeviceptr);
                break;
            case DUET_ARG_VALUE:
                params[param_count] = const_cast<void*>(arg.value);
                size = arg.size;
                break;
            default:
                fail(DUET_ERROR_INVALID_ARGUMENT, "argument " + std::to_string(i) + " of kernel '" + kernel->name +
                                                      "' has unknown kind " +
                                                      std::to_string(static_cast<int>(arg.kind)));
            }
            if (kernel->params_known) {
                if (param_count >= kernel->param_sizes.size())
                    fail_argument_count(*kernel, arg_count - (dynamic_shared ? 1 : 0));
                if (kernel->param_sizes[param_count] != size) [[unlikely]]
                    fail(DUET_ERROR_INVALID_ARGUMENT,
                         "argument " + std::to_string(i) + " of kernel '" + kernel->name + "' is " +
                             std::to_string(size) + " bytes; the kernel's parameter " + std::to_string(param_count) +
                             " is " + std::to_string(kernel->param_sizes[param_count]) + " bytes");
            }
            ++param_count;
        }
        if (kernel->params_known && param_count != kernel->param_sizes.size())
            fail_argument_count(*kernel, param_count);
        if (dynamic_shared > kernel->dynamic_shared_limit)
            allow_dynamic_shared(*kernel, dynamic_shared);

        ContextScope scope(*queue->device);
        check(driver().cuLaunchKernel(kernel->function, static_cast<unsigned>(range->grid[0]),
                                      static_cast<unsigned>(range->grid[1]), static_cast<unsigned>(range->grid[2]),
                                      static_cast<unsigned>(range->block[0]), static_cast<unsigned>(range->block[1]),
                                      static_cast<unsigned>(range->block[2]), static_cast<unsigned>(dynamic_shared),
                                      queue->stream, params, nullptr),
              "cuLaunchKernel");
    });
}

duet_status queue_record(duet_queue queue, duet_event* event)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        auto created = std::make_unique<duet_event_s>();
        created->device = queue->device;
        check(driver().cuEventCreate(&created->event, CU_EVENT_DEFAULT), "cuEventCreate");
        check(driver().cuEventRecord(created->event, queue->stream), "cuEventRecord");
        *event = created.release();
    });
}

duet_status queue_wait(duet_queue queue, duet_event event)
{
    return guard([&] {
        ContextScope scope(*queue->device);
        check(driver().cuStreamWaitEvent(queue->stream, event->event, 0), "cuStreamWaitEvent");
    });
}

duet_status queue_native(duet_queue queue, void** native)
{
    return guard([&] { *native = queue->stream; });
}

} // namespace duet::backend::cuda

duet_queue_s::~duet_queue_s()
{
    using duet::backend::cuda::driver;
    if (stream != nullptr && driver().cuCtxSetCurrent(device->context) == CUDA_SUCCESS)
        driver().cuStreamDestroy(stream);
}
