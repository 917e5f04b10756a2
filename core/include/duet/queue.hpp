// An in-order queue of copies, fills and launches (cl_command_queue / CUstream). Every operation
// is non-blocking; arguments are checked before anything is enqueued.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>

#include <duet/buffer.hpp>
#include <duet/device.hpp>
#include <duet/event.hpp>
#include <duet/host_memory.hpp>
#include <duet/program.hpp>
#include <duet/range.hpp>
#include <duet/sequence.hpp>

namespace duet {

class Device;

namespace detail {
struct QueueState;

/// One kernel argument on its way to the backend.
struct LaunchArg {
    enum class Kind { buffer, value, local } kind;
    const RawBuffer* buffer = nullptr;
    const void* value = nullptr;
    std::size_t size = 0;
};

template <class T> LaunchArg launch_arg(const T& value)
{
    static_assert(!std::is_pointer_v<T>, "host pointers are not kernel arguments: pass a duet buffer");
    static_assert(std::is_trivially_copyable_v<T>, "kernel arguments by value must be trivially copyable");
    return {LaunchArg::Kind::value, nullptr, &value, sizeof(T)};
}
inline LaunchArg launch_arg(const RawBuffer& buffer)
{
    return {LaunchArg::Kind::buffer, &buffer, nullptr, 0};
}
template <class T> LaunchArg launch_arg(const Buffer<T>& buffer)
{
    return launch_arg(buffer.raw());
}
template <class T> LaunchArg launch_arg(const PitchedBuffer<T>& buffer)
{
    return launch_arg(buffer.raw());
}
inline LaunchArg launch_arg(const LocalMemory& local)
{
    return {LaunchArg::Kind::local, nullptr, nullptr, local.bytes};
}
} // namespace detail

/// One side of a rectangular copy, laid out as in cudaMemcpy3D: the origin in bytes, rows and
/// slices, rows `row_pitch` bytes apart, `rows_per_slice` rows to a slice.
struct RectSide {
    std::size_t origin_bytes = 0;
    std::size_t origin_row = 0;
    std::size_t origin_slice = 0;
    std::size_t row_pitch = 0;
    std::size_t rows_per_slice = 0;
};

/// The copied region: width in bytes, then rows and slices.
struct Extent {
    std::size_t width_bytes = 0;
    std::size_t height = 1;
    std::size_t depth = 1;
};

/// Lifetimes: work on a queue never outlives what it reads or writes. Releasing a queue (its last
/// copy going) waits for its work; freeing a HostBuffer waits for every live queue of its device.
/// Host memory the caller owns (a std::vector, a plain array) is not duet's to wait for: keep it
/// alive until finish() or an Event recorded after the copy has completed, or declare the queue
/// after it, so that unwinding releases (and so waits for) the queue first.
///
/// Threads: one queue may be used from several threads at once, and so may each thread's own
/// queue of one device. Each call is enqueued whole; calls from different threads run in the
/// order they reach the queue, so order them with finish() or events where it matters. As with
/// std::shared_ptr, copies of a Queue may be used and destroyed on different threads, but one
/// Queue variable assigned on one thread while another uses it needs the caller's lock.
class Queue {
public:
    explicit Queue(std::shared_ptr<const detail::QueueState> state) : state_(std::move(state)) {}

    Device device() const;

    /// clEnqueueWriteBuffer / cuMemcpyHtoDAsync
    void write_bytes(const RawBuffer& dst, std::size_t dst_offset, const void* src, std::size_t bytes);
    /// clEnqueueReadBuffer / cuMemcpyDtoHAsync
    void read_bytes(void* dst, const RawBuffer& src, std::size_t src_offset, std::size_t bytes);
    /// clEnqueueCopyBuffer / cuMemcpyDtoDAsync. The two buffers may be on two devices of this
    /// queue's backend, one of them the queue's (a peer copy). It then travels by `route`, or where
    /// none is given directly if the queue's device can access the other's memory (Device::peer_route;
    /// cuMemcpyPeerAsync, peer access enabled on first use), else staged through pinned host memory
    /// in chunks whose two legs overlap, ordered by events (on OpenCL the host waits for each chunk's
    /// read, so the call returns once the last write is enqueued; elsewhere at once). Either way it
    /// is ordered after this queue's earlier work and before its later work;
    /// the other device's earlier work is the caller's to order (record an event on its queue and
    /// wait() for it here). Not inside a recorded sequence. InvalidArgument for a buffer of another
    /// backend, neither buffer on the queue's device, or a staged route within one device;
    /// Unsupported for a direct route the pair lacks.
    void copy_bytes(const RawBuffer& dst, std::size_t dst_offset, const RawBuffer& src, std::size_t src_offset,
                    std::size_t bytes, std::optional<PeerRoute> route = std::nullopt);
    /// clEnqueueFillBuffer / cuMemsetD{8,16,32}Async; offset and size are multiples of the pattern.
    void fill_bytes(const RawBuffer& dst, std::size_t offset, std::size_t bytes, const void* pattern,
                    std::size_t pattern_size);

    /// clEnqueue{Write,Read,Copy}BufferRect / cuMemcpy3DAsync (a single slice included).
    void write_rect(const RawBuffer& dst, const RectSide& dst_side, const void* src, const RectSide& src_side,
                    const Extent& extent);
    void read_rect(void* dst, const RectSide& dst_side, const RawBuffer& src, const RectSide& src_side,
                   const Extent& extent);
    void copy_rect(const RawBuffer& dst, const RectSide& dst_side, const RawBuffer& src, const RectSide& src_side,
                   const Extent& extent);

    // Typed copies: the element type comes from the buffer, so a std::vector converts to the span.
    // Offsets and counts are elements; their sizes in bytes are checked for overflow.
    template <class T> void write(const BufferView<T>& dst, std::span<const std::type_identity_t<T>> src)
    {
        constexpr const char* call = "Queue::write";
        check_count(dst.count, src.size());
        write_bytes(dst.buffer, checked_product(dst.offset, sizeof(T), call, "offset in bytes"), src.data(),
                    checked_product(src.size(), sizeof(T), call, "size in bytes"));
    }
    template <class T> void write(const Buffer<T>& dst, std::span<const std::type_identity_t<T>> src)
    {
        write(BufferView<T>(dst), src);
    }
    template <class T> void read(std::span<std::type_identity_t<T>> dst, const BufferView<T>& src)
    {
        constexpr const char* call = "Queue::read";
        check_count(src.count, dst.size());
        read_bytes(dst.data(), src.buffer, checked_product(src.offset, sizeof(T), call, "offset in bytes"),
                   checked_product(dst.size(), sizeof(T), call, "size in bytes"));
    }
    template <class T> void read(std::span<std::type_identity_t<T>> dst, const Buffer<T>& src)
    {
        read(dst, BufferView<T>(src));
    }
    template <class T>
    void copy(const BufferView<T>& dst, const BufferView<T>& src, std::optional<PeerRoute> route = std::nullopt)
    {
        constexpr const char* call = "Queue::copy";
        check_count(dst.count, src.count);
        copy_bytes(dst.buffer, checked_product(dst.offset, sizeof(T), call, "destination offset in bytes"), src.buffer,
                   checked_product(src.offset, sizeof(T), call, "source offset in bytes"),
                   checked_product(src.count, sizeof(T), call, "size in bytes"), route);
    }
    template <class T>
    void copy(const Buffer<T>& dst, const Buffer<T>& src, std::optional<PeerRoute> route = std::nullopt)
    {
        copy(BufferView<T>(dst), BufferView<T>(src), route);
    }
    template <class T> void fill(const BufferView<T>& dst, const std::type_identity_t<T>& value)
    {
        constexpr const char* call = "Queue::fill";
        fill_bytes(dst.buffer, checked_product(dst.offset, sizeof(T), call, "offset in bytes"),
                   checked_product(dst.count, sizeof(T), call, "size in bytes"), &value, sizeof(T));
    }
    template <class T> void fill(const Buffer<T>& dst, const std::type_identity_t<T>& value)
    {
        fill(BufferView<T>(dst), value);
    }

    /// A densely packed host array (width × height × depth) to and from a pitched buffer.
    template <class T> void write(const PitchedBuffer<T>& dst, std::span<const std::type_identity_t<T>> src)
    {
        constexpr const char* call = "Queue::write";
        check_count(elements(dst, call), src.size());
        write_rect(dst.raw(), device_side(dst), src.data(), host_side(dst, call), extent(dst, call));
    }
    template <class T> void read(std::span<std::type_identity_t<T>> dst, const PitchedBuffer<T>& src)
    {
        constexpr const char* call = "Queue::read";
        check_count(elements(src, call), dst.size());
        read_rect(dst.data(), host_side(src, call), src.raw(), device_side(src), extent(src, call));
    }

    /// clSetKernelArg + clEnqueueNDRangeKernel / cuLaunchKernel. Arguments: buffers, trivially
    /// copyable values, and at most one LocalMemory. The range is checked against the device's
    /// and the kernel's limits first; a range that breaks one throws InvalidArgument naming it.
    template <class... Args> void launch(const Kernel& kernel, const Range& range, const Args&... args)
    {
        const std::array<detail::LaunchArg, sizeof...(Args)> packed{detail::launch_arg(args)...};
        launch_packed(kernel, range, packed.data(), packed.size());
    }
    /// The same with arguments assembled at run time (a manifest's), each from detail::launch_arg.
    void launch(const Kernel& kernel, const Range& range, std::span<const detail::LaunchArg> args)
    {
        launch_packed(kernel, range, args.data(), args.size());
    }

    /// clEnqueueMarkerWithWaitList / cuEventRecord
    Event record();
    /// Later work on this queue waits for `event`, which may come from another queue of the
    /// same device or of another device of the same backend (clEnqueueBarrierWithWaitList /
    /// cuStreamWaitEvent; OpenCL, whose wait lists name one context's events, waits on the host for
    /// an event of another device). InvalidArgument for an event of another backend.
    void wait(const Event& event);
    /// clFinish / cuStreamSynchronize
    void finish();

    /// Waits for the queue's earlier work, then records the device-to-device copies, fills and
    /// launches that `commands` issues on this queue, without running them, for replay() to run as
    /// often as needed: a CUDA graph
    /// (cuStreamBeginCapture, cuStreamEndCapture, cuGraphInstantiateWithFlags), an OpenCL command
    /// buffer (clCreateCommandBufferKHR, clCommand*KHR, clFinalizeCommandBufferKHR), or, where the
    /// device has neither, where `how` is Recording::plain, or where it is Recording::fastest and
    /// replay_choice() found the plain replay faster on the device, the commands kept by the core
    /// with their argument values copied. A sequence touches no host memory and does not synchronise: host
    /// copies, record(), wait() and finish() inside are InvalidArgument. Allocate before recording
    /// (CUDA refuses allocations during a capture). Commands that other threads issue on this queue
    /// meanwhile are recorded too, as CUDA's capture does, each wholly inside the recording or
    /// wholly before or after it; their host copies and synchronisation are refused alike. If `commands` throws,
    /// nothing was run, the recording is dropped and the queue is usable as before.
    Sequence record_sequence(const std::function<void(Queue&)>& commands, Recording how = Recording::fastest);
    /// Runs a sequence recorded on a queue of this queue's device (cuGraphLaunch /
    /// clEnqueueCommandBufferKHR / its commands issued again), ordered like any enqueue.
    void replay(const Sequence& sequence);

    /// cl_command_queue or CUstream, for libraries such as CLBlast and cuBLAS.
    void* native() const;

    const std::shared_ptr<const detail::QueueState>& state() const { return state_; }

private:
    void launch_packed(const Kernel& kernel, const Range& range, const detail::LaunchArg* args, std::size_t count);
    static void check_count(std::size_t expected, std::size_t given);
    /// a × b, or InvalidArgument naming `what` and both numbers when it overflows.
    std::size_t checked_product(std::size_t a, std::size_t b, const char* call, const char* what) const;

    template <class T> std::size_t elements(const PitchedBuffer<T>& buffer, const char* call) const
    {
        return checked_product(checked_product(buffer.width(), buffer.height(), call, "width × height"), buffer.depth(),
                               call, "width × height × depth");
    }
    template <class T> static RectSide device_side(const PitchedBuffer<T>& buffer)
    {
        return {0, 0, 0, buffer.pitch(), buffer.height()};
    }
    template <class T> RectSide host_side(const PitchedBuffer<T>& buffer, const char* call) const
    {
        return {0, 0, 0, checked_product(buffer.width(), sizeof(T), call, "row in bytes"), buffer.height()};
    }
    template <class T> Extent extent(const PitchedBuffer<T>& buffer, const char* call) const
    {
        return {checked_product(buffer.width(), sizeof(T), call, "row in bytes"), buffer.height(), buffer.depth()};
    }

    std::shared_ptr<const detail::QueueState> state_;
};

} // namespace duet
