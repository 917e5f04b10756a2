// A host array and a device buffer of the same size that know which of them holds the current
// data (a unified-memory pointer, with the transfers explicit): reading the stale side is
// refused with an InvalidArgument that says which transfer is missing, never served silently.
#pragma once

#include <cstddef>
#include <span>
#include <string>

#include <duet/buffer.hpp>
#include <duet/device.hpp>
#include <duet/error.hpp>
#include <duet/event.hpp>
#include <duet/host_memory.hpp>
#include <duet/queue.hpp>

namespace duet {

/// Threads: one Mirror is used from one thread at a time, like the queue its transfers go on.
template <class T> class Mirror {
public:
    /// Which side holds the current data.
    enum class Current { both, host, device };

    /// `count` elements on each side; the host side of memory `kind` (refused with Unsupported
    /// where the device's backend cannot give it). Both sides start current, and undefined.
    Mirror(const Device& device, std::size_t count, HostMemoryKind kind = HostMemoryKind::pinned)
        : host_(device.alloc_host(count * sizeof(T), kind)), device_(device.alloc<T>(count))
    {
    }

    /// One record of which side is current: a copy would keep a second one.
    Mirror(const Mirror&) = delete;
    Mirror& operator=(const Mirror&) = delete;
    Mirror(Mirror&&) noexcept = default;
    Mirror& operator=(Mirror&&) noexcept = default;

    std::size_t size() const { return device_.size(); }
    Current current() const { return current_; }

    /// The host side, to read or to write; a write makes the host side the current one: say so
    /// with host_written(). Refused while the device side is newer (after device_written(),
    /// before to_host()); waits for a transfer still in flight either way.
    std::span<T> host()
    {
        refuse_if(Current::device, "Mirror::host", "the device side is newer: call to_host(queue) first");
        if (pending_.state()) {
            pending_.wait();
            pending_ = Event();
        }
        return host_.template as<T>().first(size());
    }
    /// The device side, for kernel arguments; refused while the host side is newer.
    const Buffer<T>& device() const
    {
        refuse_if(Current::host, "Mirror::device", "the host side is newer: call to_device(queue) first");
        return device_;
    }

    /// Marks the host side as written: the device side is stale until to_device().
    void host_written()
    {
        refuse_if(Current::device, "Mirror::host_written", "the device side is newer: both sides changed");
        current_ = Current::host;
    }
    /// Marks the device side as written (by a kernel): the host side is stale until to_host().
    void device_written()
    {
        refuse_if(Current::host, "Mirror::device_written", "the host side is newer: both sides changed");
        current_ = Current::device;
    }

    /// Enqueues host -> device on `queue`; both sides are current after it (later work on the
    /// queue sees the data), and host() waits for it.
    void to_device(Queue& queue)
    {
        refuse_if(Current::device, "Mirror::to_device", "the device side is newer: it would be overwritten");
        queue.write(device_, std::span<const T>(host_.template as<T>().first(size())));
        pending_ = queue.record(); // the host side is not to be written while the copy reads it
        current_ = Current::both;
    }
    /// Enqueues device -> host on `queue`; both sides are current after it, and host() waits for it.
    void to_host(Queue& queue)
    {
        refuse_if(Current::host, "Mirror::to_host", "the host side is newer: it would be overwritten");
        queue.read(host_.template as<T>().first(size()), device_);
        pending_ = queue.record();
        current_ = Current::both;
    }

private:
    void refuse_if(Current stale_side_newer, const char* call, const std::string& why) const
    {
        if (current_ == stale_side_newer) {
            throw InvalidArgument("duet", call, "a mirrored array of " + std::to_string(size()) + " elements: " + why);
        }
    }

    HostBuffer host_;
    Buffer<T> device_;
    Current current_ = Current::both;
    Event pending_;
};

} // namespace duet
