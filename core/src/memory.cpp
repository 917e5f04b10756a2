// Buffers and host memory: accessors, and releasing the backend's handles when the last owner
// goes. Destructors never throw; a failed release has nowhere to go and is dropped.
#include <duet/buffer.hpp>
#include <duet/device.hpp>
#include <duet/host_memory.hpp>

#include "state.hpp"

#include <cstdlib>

namespace duet {

std::string_view to_string(HostMemoryKind kind)
{
    switch (kind) {
    case HostMemoryKind::pageable:
        return "pageable";
    case HostMemoryKind::pinned:
        return "pinned";
    case HostMemoryKind::write_combined:
        return "write_combined";
    case HostMemoryKind::mapped:
        return "mapped";
    case HostMemoryKind::registered:
        return "registered";
    }
    return "unknown";
}

std::size_t RawBuffer::bytes() const
{
    return state_ ? state_->bytes : 0;
}
Device RawBuffer::device() const
{
    return Device(detail::live(state_, "RawBuffer::device", "RawBuffer").device);
}

void* RawBuffer::native() const
{
    void* native = nullptr;
    const auto& device = *detail::live(state_, "RawBuffer::native", "RawBuffer").device;
    device.check(device.backend->require(device.api().buffer_native, "native buffer handles")(state_->handle, &native));
    return native;
}

void* HostBuffer::data() const
{
    return state_ ? state_->data : nullptr;
}
std::size_t HostBuffer::bytes() const
{
    return state_ ? state_->bytes : 0;
}
HostMemoryKind HostBuffer::kind() const
{
    return detail::live(state_, "HostBuffer::kind", "HostBuffer").kind;
}

RawBuffer HostBuffer::device_buffer() const
{
    const auto& device = detail::live(state_, "HostBuffer::device_buffer", "HostBuffer").device;
    if (state_->kind != HostMemoryKind::mapped && state_->kind != HostMemoryKind::registered) {
        detail::fail<InvalidArgument>(device->backend->name(), "HostBuffer::device_buffer",
                                      std::string("kernels can read mapped or registered host memory, not ") +
                                          std::string(to_string(state_->kind)) + " memory");
    }
    auto buffer = std::make_shared<detail::BufferState>();
    buffer->device = device;
    buffer->bytes = state_->bytes;
    buffer->aliased = state_;
    device->check(device->backend->require(device->api().host_device_buffer,
                                           "device views of host memory")(state_->handle, &buffer->handle));
    return RawBuffer(std::move(buffer));
}

namespace detail {

void BufferState::add_foreign_copy(std::shared_ptr<const EventState> done) const
{
    const std::lock_guard lock(foreign_mutex_);
    std::erase_if(foreign_copies_, [](const std::shared_ptr<const EventState>& event) {
        int complete = 0;
        return event->device->api().event_query(event->handle, &complete) == DUET_SUCCESS && complete != 0;
    });
    foreign_copies_.push_back(std::move(done));
}

BufferState::~BufferState()
{
    for (const auto& event : foreign_copies_) {
        event->device->api().event_wait(event->handle);
    }
    if (handle != nullptr) {
        device->api().buffer_release(handle);
    }
    device->refund(charged);
}

HostState::~HostState()
{
    if (data != nullptr) {
        // Copies still queued on this device may read or write this memory.
        device->finish_queues();
    }
    if (handle != nullptr) {
        device->api().host_release(handle);
    } else if (kind == HostMemoryKind::pageable && data != nullptr) {
        std::free(data);
    }
}

} // namespace detail
} // namespace duet
