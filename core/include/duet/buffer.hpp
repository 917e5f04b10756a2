// Device memory: an untyped RawBuffer, typed Buffer<T> and BufferView<T> over it, and pitched
// 2D/3D buffers whose rows the backend pads.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace duet {

class Device;

namespace detail {
struct BufferState;
}

/// Bytes of device memory (cl_mem / CUdeviceptr). Copies share the allocation.
///
/// Threads: buffers (and copies of them) may be used from several threads and queues at once;
/// what two queues do to the same bytes is ordered only by events (Queue::wait), as on the device.
class RawBuffer {
public:
    RawBuffer() = default;
    explicit RawBuffer(std::shared_ptr<const detail::BufferState> state) : state_(std::move(state)) {}

    std::size_t bytes() const;
    Device device() const;
    /// cl_mem, or CUdeviceptr widened to a pointer, for libraries such as CLBlast and cuBLAS.
    void* native() const;

    const std::shared_ptr<const detail::BufferState>& state() const { return state_; }
    explicit operator bool() const { return state_ != nullptr; }

private:
    std::shared_ptr<const detail::BufferState> state_;
};

/// `count` elements starting at element `offset` of a buffer; the queue checks the bounds.
template <class T> struct BufferView {
    RawBuffer buffer;
    std::size_t offset = 0;
    std::size_t count = 0;
};

template <class T> class Buffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

public:
    using value_type = T;

    Buffer() = default;
    explicit Buffer(RawBuffer raw) : raw_(std::move(raw)) {}

    std::size_t size() const { return raw_.bytes() / sizeof(T); }
    const RawBuffer& raw() const { return raw_; }
    BufferView<T> view(std::size_t offset, std::size_t count) const { return {raw_, offset, count}; }
    operator BufferView<T>() const { return {raw_, 0, size()}; }

private:
    RawBuffer raw_;
};

/// A 2D or 3D array whose rows are `pitch` bytes apart; kernels index rows by the byte pitch,
/// as with cudaMallocPitch.
template <class T> class PitchedBuffer {
    static_assert(std::is_trivially_copyable_v<T>, "device buffers hold trivially copyable types");

public:
    using value_type = T;

    PitchedBuffer() = default;
    PitchedBuffer(RawBuffer raw, std::size_t pitch, std::size_t width, std::size_t height, std::size_t depth)
        : raw_(std::move(raw)), pitch_(pitch), width_(width), height_(height), depth_(depth)
    {
    }

    const RawBuffer& raw() const { return raw_; }
    std::size_t pitch() const { return pitch_; } ///< bytes from one row to the next
    std::size_t width() const { return width_; } ///< elements per row
    std::size_t height() const { return height_; }
    std::size_t depth() const { return depth_; }

private:
    RawBuffer raw_;
    std::size_t pitch_ = 0;
    std::size_t width_ = 0;
    std::size_t height_ = 0;
    std::size_t depth_ = 0;
};

} // namespace duet
