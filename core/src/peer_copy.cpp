// Copies between two devices of one backend that go through the host, once for every backend:
// chunks of pinned memory of the source device, each read there by a staging queue while the
// chunk before it is written on the destination, the two legs ordered by events (Queue::wait across
// devices): on CUDA the copy is enqueued without waiting on the host; on OpenCL, whose waits across
// contexts are the host's, it returns once its last write is enqueued.
#include "state.hpp"

#include <duet/detail/setting.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace duet::detail {

namespace {

/// Large enough that a chunk's fixed costs (two copies, two events, a cross-device wait) vanish
/// beside its transfer at tens of GB/s, small enough that the first and last legs, which do not
/// overlap, are short. 16 MiB: between two H200s NVIDIA's OpenCL, whose host waits for each chunk,
/// staged 256 MiB at 45.5 GB/s in chunks of 16 MiB and 42.1 GB/s in chunks of 8; CUDA at 50 either
/// way. DUET_PEER_CHUNK_BYTES overrides it, for tuning on a given machine.
constexpr std::size_t default_chunk_bytes = std::size_t{16} << 20;
/// Three, so that while one chunk is read and another written, a third is free for the next read.
/// DUET_PEER_CHUNKS overrides it.
constexpr std::size_t default_chunk_count = 3;

/// A whole number from the environment variable `name` within [low, high], or `fallback` where it
/// is unset or empty; anything else is InvalidArgument naming the variable and the limits.
std::size_t setting(const char* name, std::size_t fallback, std::size_t low, std::size_t high)
{
    const auto number = detail::whole_number_setting(name, fallback, low, high);
    if (!number) {
        fail<InvalidArgument>("duet", name, detail::setting_refusal(name, low, high));
    }
    return *number;
}

/// A backend event that the route owns, released when replaced or destroyed.
class OwnedEvent {
public:
    OwnedEvent() = default;
    OwnedEvent(const duet_backend_v1& api, duet_event handle) : api_(&api), handle_(handle) {}
    OwnedEvent(OwnedEvent&& other) noexcept : api_(other.api_), handle_(std::exchange(other.handle_, nullptr)) {}
    OwnedEvent& operator=(OwnedEvent&& other) noexcept
    {
        if (this != &other) {
            reset();
            api_ = other.api_;
            handle_ = std::exchange(other.handle_, nullptr);
        }
        return *this;
    }
    OwnedEvent(const OwnedEvent&) = delete;
    OwnedEvent& operator=(const OwnedEvent&) = delete;
    ~OwnedEvent() { reset(); }

    duet_event handle() const { return handle_; }

private:
    void reset() noexcept
    {
        if (handle_ != nullptr) {
            api_->event_release(handle_);
            handle_ = nullptr;
        }
    }

    const duet_backend_v1* api_ = nullptr;
    duet_event handle_ = nullptr;
};

/// An event at the current end of `queue`, a queue of `device`'s backend.
OwnedEvent record(const DeviceState& device, duet_queue queue)
{
    duet_event handle = nullptr;
    device.check(device.api().queue_record(queue, &handle));
    return {device.api(), handle};
}

} // namespace

/// What staged copies from one device to another keep between copies: the source's staging
/// queue, the pinned chunks, and for each chunk the point on the destination after which it is free.
struct StagingRoute {
    struct Chunk {
        duet_host_memory memory = nullptr;
        void* data = nullptr;
        OwnedEvent free; ///< recorded on the destination after the chunk's latest write
    };

    StagingRoute(const DeviceState& from, duet_device to) : from(from), to(to) {}
    StagingRoute(const StagingRoute&) = delete;
    StagingRoute& operator=(const StagingRoute&) = delete;

    /// Makes the staging queue and the chunks; what a failure leaves is released by the destructor.
    void open()
    {
        const auto& api = from.api();
        chunk_bytes = setting("DUET_PEER_CHUNK_BYTES", default_chunk_bytes, 4096, std::size_t{1} << 30);
        const std::size_t count = setting("DUET_PEER_CHUNKS", default_chunk_count, 2, 16);
        from.check(from.backend->require(api.queue_create, "queues")(from.handle, &reader));
        const auto host_alloc = from.backend->require(api.host_alloc, "page-locked host memory");
        chunks.resize(count);
        for (Chunk& chunk : chunks) {
            from.check(host_alloc(from.handle, chunk_bytes, DUET_HOST_PINNED, &chunk.memory, &chunk.data));
        }
    }

    /// Never throws: waits for every chunk to be written out and read into, then releases all.
    ~StagingRoute()
    {
        const auto& api = from.api();
        for (const Chunk& chunk : chunks) {
            if (chunk.free.handle() != nullptr) {
                api.event_wait(chunk.free.handle());
            }
        }
        for (const duet_queue queue : {reader, writer}) {
            if (queue != nullptr) {
                api.queue_finish(queue);
            }
        }
        for (Chunk& chunk : chunks) {
            chunk.free = OwnedEvent();
            if (chunk.memory != nullptr) {
                api.host_release(chunk.memory);
            }
        }
        for (const duet_queue queue : {reader, writer}) {
            if (queue != nullptr) {
                api.queue_release(queue);
            }
        }
    }

    const DeviceState& from;
    const duet_device to;
    std::size_t chunk_bytes = 0;
    /// Held while a copy is enqueued: a second copy on the route reuses the chunks after the first.
    std::mutex mutex;
    duet_queue reader = nullptr; ///< on `from`: the device-to-host leg
    duet_queue writer = nullptr; ///< on `to`, made for copies issued on a queue of `from`
    std::vector<Chunk> chunks;
};

StagingRoute& DeviceState::staging_route(const DeviceState& to) const
{
    const std::lock_guard lock(routes_mutex_);
    std::shared_ptr<StagingRoute>& route = routes_[to.handle];
    if (route == nullptr) {
        auto made = std::make_shared<StagingRoute>(*this, to.handle);
        made->open();
        route = std::move(made);
    }
    return *route;
}

bool peer_access(const DeviceState& from, const DeviceState& to)
{
    if (&from == &to) {
        return true;
    }
    const auto slot = to.api().device_peer_access;
    if (slot == nullptr) {
        return false;
    }
    int possible = 0;
    to.check(slot(from.handle, to.handle, &possible));
    return possible != 0;
}

void copy_staged(const QueueState& queue, const BufferState& dst, std::size_t dst_offset, const BufferState& src,
                 std::size_t src_offset, std::size_t bytes)
{
    const DeviceState& source = *src.device;
    const auto& api = source.api();
    StagingRoute& route = source.staging_route(*dst.device);
    const std::lock_guard lock(route.mutex);
    const bool on_destination = queue.device == dst.device;
    if (!on_destination && route.writer == nullptr) {
        source.check(api.queue_create(route.to, &route.writer));
    }
    const duet_queue writer = on_destination ? queue.handle : route.writer;
    // The first read follows everything the calling queue was to do before the copy, what it
    // waited for on other devices included.
    const OwnedEvent start = record(source, queue.handle);
    source.check(api.queue_wait(route.reader, start.handle()));
    StagingRoute::Chunk* last = nullptr;
    for (std::size_t done = 0, index = 0; done < bytes; ++index) {
        const std::size_t n = std::min(route.chunk_bytes, bytes - done);
        StagingRoute::Chunk& chunk = route.chunks[index % route.chunks.size()];
        if (chunk.free.handle() != nullptr) {
            source.check(api.queue_wait(route.reader, chunk.free.handle()));
        }
        source.check(api.queue_read(route.reader, chunk.data, src.handle, src_offset + done, n));
        const OwnedEvent read = record(source, route.reader);
        source.check(api.queue_wait(writer, read.handle()));
        source.check(api.queue_write(writer, dst.handle, dst_offset + done, chunk.data, n));
        chunk.free = record(source, writer);
        last = &chunk;
        done += n;
    }
    if (!on_destination && last != nullptr) {
        // The calling queue's later work follows the copy's last write.
        source.check(api.queue_wait(queue.handle, last->free.handle()));
    }
}

} // namespace duet::detail
