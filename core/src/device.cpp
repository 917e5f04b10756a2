// Device: properties, and the factory for queues, buffers and host memory on it.
#include <duet/device.hpp>
#include <duet/queue.hpp>

#include "state.hpp"

#include <cstdlib>
#include <limits>

namespace duet {

std::string_view to_string(DeviceType type)
{
    switch (type) {
    case DeviceType::gpu:
        return "gpu";
    case DeviceType::cpu:
        return "cpu";
    case DeviceType::accelerator:
        return "accelerator";
    case DeviceType::other:
        break;
    }
    return "other";
}

std::string_view to_string(PeerRoute route)
{
    return route == PeerRoute::direct ? "direct" : "staged";
}

Device::Device(std::shared_ptr<const detail::DeviceState> state) : state_(std::move(state)) {}

const DeviceProperties& Device::properties() const
{
    return detail::live(state_, "Device::properties", "Device").properties;
}
const std::string& Device::backend() const
{
    return detail::live(state_, "Device::backend", "Device").backend->name();
}
std::uint32_t Device::index() const
{
    return detail::live(state_, "Device::index", "Device").index;
}
std::string Device::selector() const
{
    return backend() + ":" + std::to_string(index());
}

PeerRoute Device::peer_route(const Device& from) const
{
    const detail::DeviceState& to = detail::live(state_, "Device::peer_route", "Device");
    const detail::DeviceState& source = detail::live(from.state_, "Device::peer_route", "Device");
    if (source.backend->name() != to.backend->name()) {
        detail::fail<InvalidArgument>(to.backend->name(), "Device::peer_route",
                                      "no route between " + from.selector() + " (" + source.properties.name + ") and " +
                                          selector() + " (" + to.properties.name +
                                          "): they belong to different backends (copy through host memory)");
    }
    return detail::peer_access(source, to) ? PeerRoute::direct : PeerRoute::staged;
}

Queue Device::create_queue() const
{
    const detail::DeviceState& state = detail::live(state_, "Device::create_queue", "Device");
    auto queue = std::make_shared<detail::QueueState>();
    queue->device = state_;
    state.check(state.backend->require(state.api().queue_create, "queues")(state.handle, &queue->handle));
    state.add_queue(*queue);
    return Queue(std::move(queue));
}

std::size_t Device::checked_bytes(std::size_t count, std::size_t size) const
{
    std::size_t bytes = 0;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        detail::fail<OutOfMemory>(backend(), "Device::alloc",
                                  std::to_string(count) + " elements of " + std::to_string(size) +
                                      " bytes overflow the address space");
    }
    return bytes;
}

namespace {
using detail::bytes_text;

/// Refuses, before the driver sees it, an allocation the device cannot hold: OpenCL allocates
/// lazily, so the failure would otherwise surface at first use instead of here.
void check_fits(const detail::DeviceState& device, std::size_t bytes, const char* call)
{
    const auto& p = device.properties;
    const auto limit = p.max_allocation != 0 ? p.max_allocation : p.global_memory;
    if (limit != 0 && bytes > limit) {
        detail::fail<OutOfMemory>(device.backend->name(), call,
                                  bytes_text(bytes) + " exceed the device's largest allocation (" +
                                      std::to_string(limit) + " bytes; global memory " +
                                      std::to_string(p.global_memory) + ")");
    }
    if (bytes == 0) {
        detail::fail<InvalidArgument>(device.backend->name(), call, "an allocation of 0 bytes");
    }
}

std::shared_ptr<detail::BufferState> new_buffer(const std::shared_ptr<const detail::DeviceState>& device,
                                                std::size_t bytes)
{
    auto buffer = std::make_shared<detail::BufferState>();
    buffer->device = device;
    buffer->bytes = bytes;
    return buffer;
}
} // namespace

RawBuffer Device::alloc_bytes(std::size_t bytes) const
{
    const detail::DeviceState& state = detail::live(state_, "Device::alloc", "Device");
    check_fits(state, bytes, "Device::alloc");
    auto buffer = new_buffer(state_, bytes);
    state.charge(bytes, "Device::alloc");
    buffer->charged = bytes;
    state.check(
        state.backend->require(state.api().buffer_create, "device buffers")(state.handle, bytes, &buffer->handle));
    return RawBuffer(std::move(buffer));
}

std::pair<RawBuffer, std::size_t> Device::alloc_pitched_bytes(std::size_t width_bytes, std::size_t rows) const
{
    const detail::DeviceState& state = detail::live(state_, "Device::alloc_pitched", "Device");
    check_fits(state, checked_bytes(width_bytes, rows), "Device::alloc_pitched");
    auto buffer = new_buffer(state_, 0);
    std::size_t pitch = 0;
    state.check(state.backend->require(state.api().buffer_create_pitched,
                                       "pitched buffers")(state.handle, width_bytes, rows, &buffer->handle, &pitch));
    // The padded size is known only now; a refusal releases the new buffer, unused.
    buffer->bytes = pitch * rows;
    state.charge(buffer->bytes, "Device::alloc_pitched");
    buffer->charged = buffer->bytes;
    return {RawBuffer(std::move(buffer)), pitch};
}

HostBuffer Device::alloc_host(std::size_t bytes, HostMemoryKind kind) const
{
    const detail::DeviceState& state = detail::live(state_, "Device::alloc_host", "Device");
    if (bytes == 0) {
        detail::fail<InvalidArgument>(backend(), "Device::alloc_host", "an allocation of 0 bytes");
    }
    auto host = std::make_shared<detail::HostState>();
    host->device = state_;
    host->bytes = bytes;
    host->kind = kind;
    switch (kind) {
    case HostMemoryKind::pageable:
        // posix_memalign reports failure by its result, under AddressSanitizer too, whose operator
        // new aborts the process instead of throwing.
        if (::posix_memalign(&host->data, 4096, bytes) != 0) {
            host->data = nullptr;
            detail::fail<OutOfMemory>(backend(), "Device::alloc_host",
                                      "pageable host memory of " + bytes_text(bytes) + " could not be allocated");
        }
        break;
    case HostMemoryKind::pinned:
    case HostMemoryKind::write_combined:
    case HostMemoryKind::mapped: {
        const auto native_kind = kind == HostMemoryKind::pinned           ? DUET_HOST_PINNED
                                 : kind == HostMemoryKind::write_combined ? DUET_HOST_WRITE_COMBINED
                                                                          : DUET_HOST_MAPPED;
        state.check(state.backend->require(state.api().host_alloc, "page-locked host memory")(
            state.handle, bytes, native_kind, &host->handle, &host->data));
        break;
    }
    case HostMemoryKind::registered:
        detail::fail<InvalidArgument>(backend(), "Device::alloc_host",
                                      "registered memory is the user's own: use Device::register_host");
    }
    return HostBuffer(std::move(host));
}

HostBuffer Device::register_host(void* pointer, std::size_t bytes) const
{
    const detail::DeviceState& state = detail::live(state_, "Device::register_host", "Device");
    if (pointer == nullptr || bytes == 0) {
        detail::fail<InvalidArgument>(backend(), "Device::register_host",
                                      pointer == nullptr ? "null host pointer" : "a registration of 0 bytes");
    }
    auto host = std::make_shared<detail::HostState>();
    host->device = state_;
    host->bytes = bytes;
    host->kind = HostMemoryKind::registered;
    host->data = pointer;
    state.check(state.backend->require(state.api().host_register, "host memory registration")(state.handle, pointer,
                                                                                              bytes, &host->handle));
    return HostBuffer(std::move(host));
}

namespace detail {

void DeviceState::add_queue(const QueueState& queue) const
{
    const std::lock_guard lock(queues_mutex_);
    queues_.push_back(&queue);
}

void DeviceState::remove_queue(const QueueState& queue) const
{
    const std::lock_guard lock(queues_mutex_);
    std::erase(queues_, &queue);
}

void DeviceState::finish_queues() const noexcept
{
    // Held while waiting, so that no listed queue is released meanwhile (QueueState's destructor
    // delists its queue under this lock before releasing it).
    const std::lock_guard lock(queues_mutex_);
    for (const QueueState* queue : queues_) {
        // A queue that records runs nothing (it began idle: record_sequence), and a capturing
        // CUDA stream cannot be synchronised without spoiling the capture.
        const std::shared_lock gate(queue->recording_gate);
        if (queue->recording == nullptr) {
            api().queue_finish(queue->handle);
        }
    }
}

void DeviceState::charge(std::size_t bytes, const char* call) const
{
    const std::uint64_t limit = properties.global_memory;
    const std::lock_guard lock(memory_mutex_);
    if (limit != 0 && (bytes > limit || bytes_in_use_ > limit - bytes)) {
        fail<OutOfMemory>(backend->name(), call,
                          "a buffer of " + bytes_text(bytes) +
                              " would take the device's buffers past its global memory: " + bytes_text(bytes_in_use_) +
                              " already in use of " + bytes_text(limit));
    }
    bytes_in_use_ += bytes;
}

void DeviceState::refund(std::size_t bytes) const noexcept
{
    const std::lock_guard lock(memory_mutex_);
    bytes_in_use_ -= bytes;
}

} // namespace detail

NativeDevice Device::native() const
{
    const detail::DeviceState& state = detail::live(state_, "Device::native", "Device");
    NativeDevice native{nullptr, nullptr};
    state.check(state.backend->require(state.api().device_native, "native device handles")(state.handle, &native.device,
                                                                                           &native.context));
    return native;
}

} // namespace duet
