// Queues: copies, fills, launches and markers on an in-order cl_command_queue with profiling.
// Every enqueue is non-blocking and asks for no event, since launch overhead is what duet is
// measured on, but for transfers of pageable host memory, which are staged as CUDA's driver
// stages them (Staging); the core has validated sizes and ranges before any of these is called.
#include "common.hpp"

#include <duet/detail/setting.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string_view>
#include <system_error>
#include <thread>

namespace duet::backend::opencl {
namespace {

struct RectGeometry {
    std::size_t origin[3];
    std::size_t row_pitch;
    std::size_t slice_pitch;
};

RectGeometry geometry(const duet_rect_side& side)
{
    return {
        {side.origin_bytes, side.origin_row, side.origin_slice}, side.row_pitch, side.row_pitch * side.rows_per_slice};
}

[[noreturn]] void fail_argument_count(const duet_kernel_s& kernel, std::uint32_t given)
{
    fail(DUET_ERROR_INVALID_ARGUMENT, "kernel '" + kernel.name + "' takes " + std::to_string(kernel.arguments.count) +
                                          " arguments; " + std::to_string(given) + " were given");
}

duet_arg_kind kind_taken(cl_kernel_arg_address_qualifier qualifier)
{
    switch (qualifier) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        return DUET_ARG_BUFFER;
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        return DUET_ARG_LOCAL;
    default:
        return DUET_ARG_VALUE;
    }
}

std::string describe_taken(const duet_kernel_s& kernel, std::uint32_t index)
{
    const std::string& type = kernel.arguments.types[index];
    switch (kernel.arguments.qualifiers[index]) {
    case CL_KERNEL_ARG_ADDRESS_GLOBAL:
        return "a __global pointer (" + type + "): pass a buffer";
    case CL_KERNEL_ARG_ADDRESS_CONSTANT:
        return "a __constant pointer (" + type + "): pass a buffer";
    case CL_KERNEL_ARG_ADDRESS_LOCAL:
        return "a __local pointer (" + type + "): pass LocalMemory";
    default:
        return "a value (" + type + ")";
    }
}

std::string describe_given(const duet_kernel_arg& arg)
{
    switch (arg.kind) {
    case DUET_ARG_BUFFER:
        return "a buffer";
    case DUET_ARG_LOCAL:
        return "LocalMemory";
    default:
        return "a value of " + std::to_string(arg.size) + " bytes";
    }
}

/// Where the driver reports what each argument takes, a value where the kernel dereferences a
/// pointer (PoCL would take its bytes for a cl_mem and crash), a buffer where it takes a value, or
/// LocalMemory where it takes no __local pointer, is refused before anything is set or enqueued.
void check_argument_kinds(const duet_kernel_s& kernel, const duet_kernel_arg* args, std::uint32_t arg_count)
{
    if (kernel.arguments.qualifiers.empty())
        return;
    for (std::uint32_t i = 0; i < arg_count; ++i) {
        if (args[i].kind != kind_taken(kernel.arguments.qualifiers[i])) [[unlikely]]
            fail(DUET_ERROR_INVALID_ARGUMENT, "argument " + std::to_string(i) + " of kernel '" + kernel.name +
                                                  "' takes " + describe_taken(kernel, i) + "; " +
                                                  describe_given(args[i]) + " was given");
    }
}

/// A refused argument is the caller's mistake (a value of the wrong size, most often), unless
/// the driver ran out of memory.
[[noreturn]] void fail_argument(const duet_kernel_s& kernel, std::uint32_t index, cl_int code)
{
    const bool bad_argument =
        code == CL_INVALID_ARG_INDEX || code == CL_INVALID_ARG_VALUE || code == CL_INVALID_ARG_SIZE;
    fail(bad_argument ? DUET_ERROR_INVALID_ARGUMENT : status_of(code),
         "argument " + std::to_string(index) + " of kernel '" + kernel.name + "' was refused: " + error_name(code) +
             " (" + std::to_string(code) + ")",
         "clSetKernelArg", code, error_name(code));
}

/// clSetKernelArg for each argument of a launch of `kernel`, on `target`: the kernel itself, under
/// its lock, or a copy of it of the caller's own.
void set_arguments(const duet_kernel_s& kernel, cl_kernel target, const duet_kernel_arg* args, std::uint32_t arg_count)
{
    for (std::uint32_t i = 0; i < arg_count; ++i) {
        const duet_kernel_arg& arg = args[i];
        cl_int code = CL_SUCCESS;
        switch (arg.kind) {
        case DUET_ARG_BUFFER:
            code = clSetKernelArg(target, i, sizeof(cl_mem), &arg.buffer->memory);
            break;
        case DUET_ARG_VALUE:
            code = clSetKernelArg(target, i, arg.size, arg.value);
            break;
        case DUET_ARG_LOCAL:
            code = clSetKernelArg(target, i, arg.size, nullptr);
            break;
        default:
            fail(DUET_ERROR_INVALID_ARGUMENT, "argument " + std::to_string(i) + " of kernel '" + kernel.name +
                                                  "' has unknown kind " + std::to_string(static_cast<int>(arg.kind)));
        }
        if (code != CL_SUCCESS) [[unlikely]]
            fail_argument(kernel, i, code);
    }
}

/// What the driver refuses at the enqueue, the queue intact: a block this device cannot hold
/// (NVIDIA's OpenCL, for a block whose registers do not fit), so Unsupported, like the core's own
/// check of the kernel's limits.
[[noreturn]] void fail_out_of_resources(const duet_kernel_s& kernel, const duet_launch_range& range)
{
    std::uint64_t threads = 1;
    for (std::uint32_t d = 0; d < range.dims; ++d)
        threads *= range.block[d];
    fail(DUET_ERROR_UNSUPPORTED,
         "kernel '" + kernel.name + "': the driver refused a block of " + std::to_string(threads) +
             " work-items (CL_OUT_OF_RESOURCES: its registers or local memory do not fit; " +
             (kernel.properties.registers != 0 ? std::to_string(kernel.properties.registers) + " registers a work-item"
                                               : "the driver did not say how many registers it uses") +
             ")",
         "clEnqueueNDRangeKernel", CL_OUT_OF_RESOURCES, error_name(CL_OUT_OF_RESOURCES));
}

} // namespace

duet_status queue_create(duet_device device, duet_queue* queue)
{
    return guard([&] {
        auto created = std::make_unique<duet_queue_s>();
        created->device = device;
        cl_int code = CL_SUCCESS;
        created->queue = clCreateCommandQueue(device->context, device->id, CL_QUEUE_PROFILING_ENABLE, &code);
        check(code, "clCreateCommandQueue");
        *queue = created.release();
    });
}

duet_status queue_release(duet_queue queue)
{
    return guard([&] { delete queue; });
}

duet_status queue_finish(duet_queue queue)
{
    return guard([&] { check(clFinish(queue->queue), "clFinish"); });
}

// Transfers, copies and fills of more than a piece go in as several commands, one after another on
// the in-order queue: pieces cost a few microseconds of a command of gigabytes.
constexpr std::size_t piece_bytes = std::size_t{1} << 30;

/// enqueue(done, size) for each piece of `bytes` in order; once with (0, 0) for none.
template <class Enqueue> void in_pieces(std::size_t bytes, Enqueue&& enqueue)
{
    std::size_t done = 0;
    do {
        const std::size_t size = std::min(piece_bytes, bytes - done);
        enqueue(done, size);
        done += size;
    } while (done < bytes);
}

// NVIDIA's OpenCL faults a fill that reaches 8 GiB into its buffer, whole or in pieces
// (CL_INVALID_COMMAND_QUEUE at the next wait, the context unusable after it), and a fill of 9 GiB
// in one command had not ended after a minute; copies, writes and reads at the same offsets were
// right (an H200, driver 580). So a piece of a fill that reaches past 2 GiB goes through a
// sub-buffer that starts where it does: the driver's offset stays below 2^31 bytes, which no
// signed 32-bit count of a pattern's elements overflows.
constexpr std::size_t fill_offset_limit = std::size_t{1} << 31;

/// [offset, offset + size) of a buffer as a fill names it: the buffer and the offset, or a
/// sub-buffer from the offset rounded down to the device's base-address alignment, and the rest.
class FillRegion {
public:
    FillRegion(const duet_device_s& device, cl_mem buffer, std::size_t offset, std::size_t size)
        : memory_(buffer), offset_(offset)
    {
        if (offset + size <= fill_offset_limit) {
            return;
        }
        const std::size_t alignment = std::max<std::size_t>(device.base_address_alignment, 1);
        const cl_buffer_region region{offset / alignment * alignment, offset % alignment + size};
        cl_int status = CL_SUCCESS;
        memory_ = clCreateSubBuffer(buffer, 0, CL_BUFFER_CREATE_TYPE_REGION, &region, &status);
        check(status, "clCreateSubBuffer");
        owned_ = true;
        offset_ = offset % alignment;
    }
    FillRegion(const FillRegion&) = delete;
    FillRegion& operator=(const FillRegion&) = delete;
    // The command that names it keeps the sub-buffer alive until it completes.
    ~FillRegion()
    {
        if (owned_) {
            clReleaseMemObject(memory_);
        }
    }
    cl_mem memory() const { return memory_; }
    std::size_t offset() const { return offset_; }

private:
    cl_mem memory_;
    std::size_t offset_;
    bool owned_ = false;
};

namespace {

/// A staging size from the environment (README: Host memory kinds), or the refusal naming it.
std::size_t setting(const char* name, std::size_t fallback, std::size_t low, std::size_t high)
{
    const auto number = detail::whole_number_setting(name, fallback, low, high);
    if (!number) {
        fail(DUET_ERROR_INVALID_ARGUMENT, detail::setting_refusal(name, low, high));
    }
    return *number;
}

} // namespace

/// Host copies of a few MiB shared among threads: one thread's memcpy between pageable and pinned
/// memory ran at about 8 GB/s on an H100's host, under the DMA's 25 and CUDA's 14 device→host.
/// A copy is cut into pieces that the caller and the helpers claim one at a time, so that a helper
/// woken late takes fewer pieces or none, and the caller waits at most for the pieces already
/// claimed: with equal parts, the caller waited for the slowest helper's wake-up, as long as its
/// own part's copy at 1 MiB. Threads that share a crew take turns (Staging holds its mutex while it
/// copies).
class CopyCrew {
public:
    /// `threads` copying, the caller's included.
    explicit CopyCrew(std::size_t threads)
    {
        const std::size_t helpers = threads - 1;
        helpers_.reserve(helpers); // so that no allocation can fail once a thread runs
        try {
            for (std::size_t index = 0; index < helpers; ++index) {
                helpers_.emplace_back([this] { serve(); });
            }
        } catch (const std::system_error&) {
            // Fewer threads than asked for: the pieces go to those there are.
        }
    }
    CopyCrew(const CopyCrew&) = delete;
    CopyCrew& operator=(const CopyCrew&) = delete;
    ~CopyCrew()
    {
        {
            const std::lock_guard lock(mutex_);
            stopping_ = true;
        }
        work_.notify_all();
        for (auto& helper : helpers_) {
            helper.join();
        }
    }

    /// 64 KiB: 16 pieces to a MiB, each a few microseconds of memcpy.
    static constexpr std::size_t piece_bytes = std::size_t{64} << 10;

    /// memcpy, in pieces among the caller and whichever helpers wake in time.
    void copy(char* dst, const char* src, std::size_t bytes)
    {
        const std::size_t pieces = (bytes + piece_bytes - 1) / piece_bytes;
        if (helpers_.empty() || pieces < 2) {
            std::memcpy(dst, src, bytes);
            return;
        }
        Job job{dst, src, bytes, pieces, 0};
        {
            const std::lock_guard lock(mutex_);
            job.round = ++round_ & round_mask;
            job_ = job;
            claimed_.store(job.round << 32, std::memory_order_relaxed);
            finished_.store(0, std::memory_order_relaxed);
        }
        work_.notify_all();
        take(job);
        // The pieces the helpers claimed and have not finished: a piece's copy, a few microseconds.
        while (finished_.load(std::memory_order_acquire) != pieces) {
            std::this_thread::yield();
        }
    }

private:
    static constexpr std::uint64_t round_mask = 0xffffffff;

    struct Job {
        char* dst = nullptr;
        const char* src = nullptr;
        std::size_t bytes = 0;
        std::size_t pieces = 0;
        std::uint64_t round = 0; ///< which copy, in claimed_'s high half
    };

    /// Claims and copies pieces of `job` until none is left. A helper still holding an earlier
    /// round's job finds claimed_ in another round and claims nothing.
    void take(const Job& job)
    {
        std::uint64_t seen = claimed_.load(std::memory_order_relaxed);
        while ((seen >> 32) == job.round && (seen & round_mask) < job.pieces) {
            if (!claimed_.compare_exchange_weak(seen, seen + 1, std::memory_order_relaxed)) {
                continue; // `seen` now holds the current count
            }
            const std::size_t at = (seen & round_mask) * piece_bytes;
            std::memcpy(job.dst + at, job.src + at, std::min(piece_bytes, job.bytes - at));
            finished_.fetch_add(1, std::memory_order_release);
            seen = claimed_.load(std::memory_order_relaxed);
        }
    }

    void serve()
    {
        std::uint64_t seen = 0;
        std::unique_lock lock(mutex_);
        while (true) {
            work_.wait(lock, [&] { return stopping_ || round_ != seen; });
            if (stopping_) {
                return;
            }
            seen = round_;
            const Job job = job_;
            lock.unlock();
            take(job);
            lock.lock();
        }
    }

    std::mutex mutex_;
    std::condition_variable work_;
    Job job_;                 ///< the latest copy, read by a helper as it wakes
    std::uint64_t round_ = 0; ///< counts copies, so that a helper wakes once for each
    /// The round (high half) and how many of its pieces are claimed (low half), one word, so that a
    /// claim is of the round it read.
    std::atomic<std::uint64_t> claimed_{0};
    std::atomic<std::size_t> finished_{0}; ///< the round's pieces copied
    bool stopping_ = false;
    std::vector<std::thread> helpers_;
};

// Pageable host memory through NVIDIA's OpenCL moved at two thirds of CUDA's rate device→host
// (1 GiB in 133 ms against 87 ms, an H100), and small copies cost half as much again (HotSpot's
// 1 MiB: 0.30 ms host→device against 0.19). CUDA's driver stages pageable memory through pinned
// buffers in a pipeline; so does this: chunks through a few pinned slots, the host's copy of
// one chunk (shared among threads: CopyCrew) beside the DMA of the others. A write returns once
// its last chunk is in a slot, the host's memory free again; a read returns once the last chunk
// is in host memory, as CUDA's pageable copies do. A staged transfer is several commands: another
// thread's commands on the queue may fall between them, as they may between any two calls.
class Staging {
public:
    explicit Staging(duet_device_s& device)
        : slot_bytes_(setting("DUET_OPENCL_STAGING_CHUNK_BYTES", std::size_t{4} << 20, std::size_t{64} << 10,
                              std::size_t{256} << 20)),
          slots_(setting("DUET_OPENCL_STAGING_SLOTS", 4, 2, 16)),
          crew_(setting("DUET_OPENCL_STAGING_THREADS",
                        std::clamp<std::size_t>(std::thread::hardware_concurrency() / 2, 1, 4), 1, 16))
    {
        for (auto& slot : slots_) {
            slot.memory = pinned_host_memory(device, slot_bytes_);
            slot.mapped = static_cast<char*>(slot.memory->mapped);
        }
    }
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;
    /// Waits for every slot's last transfer before its memory goes.
    ~Staging()
    {
        for (auto& slot : slots_) {
            if (slot.busy != nullptr) {
                clWaitForEvents(1, &slot.busy);
                clReleaseEvent(slot.busy);
            }
        }
    }

    void write(cl_command_queue queue, cl_mem dst, std::size_t offset, const char* src, std::size_t bytes)
    {
        const std::lock_guard lock(mutex_); // threads that share the queue take turns at its slots
        // What the queue holds goes to the device now: a marker recorded before this call then
        // times the transfer from its start, the first chunk's host copy included, as CUDA's event
        // does, rather than from the first chunk's flush.
        check(clFlush(queue), "clFlush");
        const std::size_t chunk = chunk_bytes(bytes);
        for (std::size_t done = 0, next = 0; done < bytes; ++next) {
            Slot& slot = slots_[next % slots_.size()];
            settle(slot);
            slot.bytes = std::min(chunk, bytes - done);
            crew_.copy(slot.mapped, src + done, slot.bytes);
            check(clEnqueueWriteBuffer(queue, dst, CL_FALSE, offset + done, slot.bytes, slot.mapped, 0, nullptr,
                                       &slot.busy),
                  "clEnqueueWriteBuffer");
            check(clFlush(queue), "clFlush"); // the DMA runs while the next chunk is copied
            done += slot.bytes;
        }
    }

    void read(cl_command_queue queue, char* dst, cl_mem src, std::size_t offset, std::size_t bytes)
    {
        const std::lock_guard lock(mutex_);
        const std::size_t chunk = chunk_bytes(bytes);
        std::size_t issued = 0, copied = 0, next_issue = 0, next_copy = 0;
        while (copied < bytes) {
            for (; issued < bytes && next_issue - next_copy < slots_.size(); ++next_issue) {
                Slot& slot = slots_[next_issue % slots_.size()];
                settle(slot);
                slot.bytes = std::min(chunk, bytes - issued);
                check(clEnqueueReadBuffer(queue, src, CL_FALSE, offset + issued, slot.bytes, slot.mapped, 0, nullptr,
                                          &slot.busy),
                      "clEnqueueReadBuffer");
                issued += slot.bytes;
            }
            check(clFlush(queue), "clFlush");
            Slot& slot = slots_[next_copy++ % slots_.size()];
            settle(slot);
            crew_.copy(dst + copied, slot.mapped, slot.bytes);
            copied += slot.bytes;
        }
    }

private:
    /// A chunk fills a slot, but a transfer smaller than two slots goes in two chunks (of at least
    /// 256 KiB, whole 64 KiB pieces of the crew's), so that the DMA of the first runs beside the
    /// host's copy of the second, even where the crew's helpers wake too late to share it. Each
    /// chunk costs a command and a flush, so more chunks lose: HotSpot's 1 MiB on an H100 in two
    /// chunks took 0.150 ms host→device and 0.102 device→host, in four 0.188 and 0.188 (CUDA's
    /// 0.121 and 0.141).
    std::size_t chunk_bytes(std::size_t bytes) const
    {
        constexpr std::size_t least = std::size_t{256} << 10, piece = CopyCrew::piece_bytes;
        const std::size_t half = (bytes / 2 + piece - 1) / piece * piece;
        return std::min({slot_bytes_, bytes, std::max(half, least)});
    }

    struct Slot {
        std::unique_ptr<duet_host_memory_s> memory;
        char* mapped = nullptr;
        cl_event busy = nullptr; ///< the slot's last transfer, until it is known to have ended
        std::size_t bytes = 0;
    };

    /// Waits for the slot's last transfer, after which its memory may be read or written.
    static void settle(Slot& slot)
    {
        if (slot.busy == nullptr) {
            return;
        }
        const cl_int code = clWaitForEvents(1, &slot.busy);
        clReleaseEvent(slot.busy);
        slot.busy = nullptr;
        check(code, "clWaitForEvents");
    }

    std::size_t slot_bytes_;
    std::mutex mutex_;
    std::vector<Slot> slots_;
    CopyCrew crew_;
};

namespace {

/// DUET_OPENCL_STAGING: auto (the default) stages pageable transfers where the device does not
/// share memory with the host; on stages them everywhere (PoCL too, for the tests); off never.
bool stages(const duet_queue_s& queue, const void* host, std::size_t bytes)
{
    const char* setting = std::getenv("DUET_OPENCL_STAGING");
    const std::string_view choice = setting == nullptr ? "" : setting; // on every transfer: no allocation
    if (choice != "" && choice != "auto" && choice != "on" && choice != "off") {
        fail(DUET_ERROR_INVALID_ARGUMENT, "DUET_OPENCL_STAGING=" + std::string(choice) + ": expected auto, on or off");
    }
    if (bytes == 0 || choice == "off" || (choice != "on" && queue.device->host_unified_memory)) {
        return false;
    }
    return !pinned_ranges().hold(host, bytes);
}

Staging& staging_of(duet_queue_s& queue)
{
    const std::lock_guard lock(queue.staging_mutex);
    if (!queue.staging) {
        queue.staging = std::make_unique<Staging>(*queue.device);
    }
    return *queue.staging;
}

} // namespace

duet_status queue_write(duet_queue queue, duet_buffer dst, std::size_t offset, const void* src, std::size_t bytes)
{
    return guard([&] {
        if (stages(*queue, src, bytes)) {
            staging_of(*queue).write(queue->queue, dst->memory, offset, static_cast<const char*>(src), bytes);
            return;
        }
        in_pieces(bytes, [&](std::size_t done, std::size_t size) {
            check(clEnqueueWriteBuffer(queue->queue, dst->memory, CL_FALSE, offset + done, size,
                                       static_cast<const char*>(src) + done, 0, nullptr, nullptr),
                  "clEnqueueWriteBuffer");
        });
    });
}

duet_status queue_read(duet_queue queue, void* dst, duet_buffer src, std::size_t offset, std::size_t bytes)
{
    return guard([&] {
        if (stages(*queue, dst, bytes)) {
            staging_of(*queue).read(queue->queue, static_cast<char*>(dst), src->memory, offset, bytes);
            return;
        }
        in_pieces(bytes, [&](std::size_t done, std::size_t size) {
            check(clEnqueueReadBuffer(queue->queue, src->memory, CL_FALSE, offset + done, size,
                                      static_cast<char*>(dst) + done, 0, nullptr, nullptr),
                  "clEnqueueReadBuffer");
        });
    });
}

duet_status queue_copy(duet_queue queue, duet_buffer dst, std::size_t dst_offset, duet_buffer src,
                       std::size_t src_offset, std::size_t bytes)
{
    return guard([&] {
        if (queue->recording) {
            record_command(*queue->recording, queue->device->command_buffers.copy,
                           queue->device->command_buffers.command_properties, "clCommandCopyBufferKHR", src->memory,
                           dst->memory, src_offset, dst_offset, bytes);
            return;
        }
        in_pieces(bytes, [&](std::size_t done, std::size_t size) {
            check(clEnqueueCopyBuffer(queue->queue, src->memory, dst->memory, src_offset + done, dst_offset + done,
                                      size, 0, nullptr, nullptr),
                  "clEnqueueCopyBuffer");
        });
    });
}

duet_status queue_fill(duet_queue queue, duet_buffer dst, std::size_t offset, std::size_t bytes, const void* pattern,
                       std::size_t pattern_size)
{
    return guard([&] {
        if (queue->recording) {
            record_command(*queue->recording, queue->device->command_buffers.fill,
                           queue->device->command_buffers.command_properties, "clCommandFillBufferKHR", dst->memory,
                           pattern, pattern_size, offset, bytes);
            return;
        }
        // A piece is a whole number of patterns: they are powers of two up to 128 bytes.
        in_pieces(bytes, [&](std::size_t done, std::size_t size) {
            const FillRegion to(*queue->device, dst->memory, offset + done, size);
            check(clEnqueueFillBuffer(queue->queue, to.memory(), pattern, pattern_size, to.offset(), size, 0, nullptr,
                                      nullptr),
                  "clEnqueueFillBuffer");
        });
    });
}

duet_status queue_write_rect(duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, const void* src,
                             const duet_rect_side* src_side, const duet_extent* extent)
{
    return guard([&] {
        const RectGeometry buffer = geometry(*dst_side);
        const RectGeometry host = geometry(*src_side);
        const std::size_t region[3] = {extent->width_bytes, extent->height, extent->depth};
        check(clEnqueueWriteBufferRect(queue->queue, dst->memory, CL_FALSE, buffer.origin, host.origin, region,
                                       buffer.row_pitch, buffer.slice_pitch, host.row_pitch, host.slice_pitch, src, 0,
                                       nullptr, nullptr),
              "clEnqueueWriteBufferRect");
    });
}

duet_status queue_read_rect(duet_queue queue, void* dst, const duet_rect_side* dst_side, duet_buffer src,
                            const duet_rect_side* src_side, const duet_extent* extent)
{
    return guard([&] {
        const RectGeometry buffer = geometry(*src_side);
        const RectGeometry host = geometry(*dst_side);
        const std::size_t region[3] = {extent->width_bytes, extent->height, extent->depth};
        check(clEnqueueReadBufferRect(queue->queue, src->memory, CL_FALSE, buffer.origin, host.origin, region,
                                      buffer.row_pitch, buffer.slice_pitch, host.row_pitch, host.slice_pitch, dst, 0,
                                      nullptr, nullptr),
              "clEnqueueReadBufferRect");
    });
}

duet_status queue_copy_rect(duet_queue queue, duet_buffer dst, const duet_rect_side* dst_side, duet_buffer src,
                            const duet_rect_side* src_side, const duet_extent* extent)
{
    return guard([&] {
        const RectGeometry to = geometry(*dst_side);
        const RectGeometry from = geometry(*src_side);
        const std::size_t region[3] = {extent->width_bytes, extent->height, extent->depth};
        if (queue->recording) {
            record_command(*queue->recording, queue->device->command_buffers.copy_rect,
                           queue->device->command_buffers.command_properties, "clCommandCopyBufferRectKHR", src->memory,
                           dst->memory, static_cast<const std::size_t*>(from.origin),
                           static_cast<const std::size_t*>(to.origin), static_cast<const std::size_t*>(region),
                           from.row_pitch, from.slice_pitch, to.row_pitch, to.slice_pitch);
            return;
        }
        check(clEnqueueCopyBufferRect(queue->queue, src->memory, dst->memory, from.origin, to.origin, region,
                                      from.row_pitch, from.slice_pitch, to.row_pitch, to.slice_pitch, 0, nullptr,
                                      nullptr),
              "clEnqueueCopyBufferRect");
    });
}

// The hot path: no heap allocation unless it fails.
duet_status queue_launch(duet_queue queue, duet_kernel kernel, const duet_launch_range* range,
                         const duet_kernel_arg* args, std::uint32_t arg_count)
{
    return guard([&] {
        if (arg_count != kernel->arguments.count)
            fail_argument_count(*kernel, arg_count);
        check_argument_kinds(*kernel, args, arg_count);

        std::size_t global[3] = {};
        std::size_t local[3] = {};
        for (std::uint32_t d = 0; d < range->dims; ++d) {
            global[d] = range->grid[d] * range->block[d];
            local[d] = range->block[d];
        }

        if (queue->recording) {
            // Recorded with a copy of the kernel of its own, whose arguments no later launch
            // changes: the extension says a command buffer takes them when recorded, but PoCL 3.1
            // reads them when it runs, so two launches of one kernel would both take the last ones.
            const cl_kernel copy = recorded_kernel(*queue->recording, *kernel);
            set_arguments(*kernel, copy, args, arg_count);
            record_command(*queue->recording, queue->device->command_buffers.launch, true, "clCommandNDRangeKernelKHR",
                           copy, static_cast<cl_uint>(range->dims), static_cast<const std::size_t*>(nullptr),
                           static_cast<const std::size_t*>(global), static_cast<const std::size_t*>(local));
            return;
        }
        std::lock_guard lock(kernel->launch_mutex);
        set_arguments(*kernel, kernel->kernel, args, arg_count);
        const cl_int code = clEnqueueNDRangeKernel(queue->queue, kernel->kernel, range->dims, nullptr, global, local, 0,
                                                   nullptr, nullptr);
        if (code == CL_OUT_OF_RESOURCES) [[unlikely]]
            fail_out_of_resources(*kernel, *range);
        check(code, "clEnqueueNDRangeKernel");
    });
}

duet_status queue_record(duet_queue queue, duet_event* event)
{
    return guard([&] {
        auto recorded = std::make_unique<duet_event_s>();
        check(clEnqueueMarkerWithWaitList(queue->queue, 0, nullptr, &recorded->event), "clEnqueueMarkerWithWaitList");
        // OpenCL lets another queue wait on this event, and event_query see it complete, only
        // once the command is flushed to the device (OpenCL 1.2, section 5.13).
        check(clFlush(queue->queue), "clFlush");
        *event = recorded.release();
    });
}

namespace {

/// The queue's later commands wait for an event of another context, which a wait list cannot name
/// (CL_INVALID_CONTEXT): the host waits for it, so that whatever is enqueued next starts after it.
/// A user event completed from the foreign event's callback would not block the host, but NVIDIA's
/// OpenCL ran such callbacks milliseconds late: a staged copy between two H200s moved 1 GB/s, a
/// chunk of 8 MiB every 8 ms, where its two legs alone run at 27 GB/s.
void wait_foreign(cl_event foreign)
{
    check(clWaitForEvents(1, &foreign), "clWaitForEvents");
}

} // namespace

duet_status queue_wait(duet_queue queue, duet_event event)
{
    return guard([&] {
        cl_context context = nullptr;
        check(clGetEventInfo(event->event, CL_EVENT_CONTEXT, sizeof context, &context, nullptr), "clGetEventInfo");
        if (context != queue->device->context) {
            wait_foreign(event->event);
            return;
        }
        check(clEnqueueBarrierWithWaitList(queue->queue, 1, &event->event, nullptr), "clEnqueueBarrierWithWaitList");
    });
}

duet_status queue_copy_peer(duet_queue, duet_buffer, std::size_t, duet_buffer, std::size_t, std::size_t)
{
    return guard([&] {
        fail(DUET_ERROR_UNSUPPORTED, "OpenCL has no direct copy between devices: each device has a context of its "
                                     "own, and a buffer lives in one context (copy through the host)");
    });
}

duet_status queue_native(duet_queue queue, void** native)
{
    return guard([&] { *native = queue->queue; });
}

} // namespace duet::backend::opencl

duet_queue_s::~duet_queue_s()
{
    staging.reset(); // its transfers end on the queue
    if (queue)
        clReleaseCommandQueue(queue);
}
