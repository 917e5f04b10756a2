// Host memory of the kinds the CUDA lessons compare. What each kind becomes on each backend is
// documented in README.md; a kind a backend cannot give is refused, never replaced by another.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <string_view>
#include <utility>

#include <duet/buffer.hpp>

namespace duet {

namespace detail {
struct HostState;
}

enum class HostMemoryKind {
    pageable,       ///< ordinary memory from the C++ allocator
    pinned,         ///< page-locked: cuMemHostAlloc / a mapped CL_MEM_ALLOC_HOST_PTR buffer
    write_combined, ///< pinned and uncached for the CPU (CU_MEMHOSTALLOC_WRITECOMBINED)
    mapped,         ///< pinned and readable by kernels (zero-copy)
    registered      ///< existing memory page-locked after the fact (cuMemHostRegister)
};

std::string_view to_string(HostMemoryKind kind);

/// Host memory that duet owns (or, for registered memory, has page-locked). Freeing it (its last
/// copy going) first waits for the work of every live queue of its device, as cuMemFreeHost does,
/// so a HostBuffer declared after its queue is safe even when an exception unwinds both while
/// copies are still running. A queue of another device that copies from it is not waited for:
/// finish that queue first.
///
/// Threads: copies of a HostBuffer may be used and destroyed on different threads; the memory
/// itself is the caller's to synchronise, like any host memory (and a queue's copy into it is
/// complete only after finish() or an Event recorded after the copy).
class HostBuffer {
public:
    HostBuffer() = default;
    explicit HostBuffer(std::shared_ptr<detail::HostState> state) : state_(std::move(state)) {}

    void* data() const;
    std::size_t bytes() const;
    HostMemoryKind kind() const;
    template <class T> std::span<T> as() const { return {static_cast<T*>(data()), bytes() / sizeof(T)}; }
    /// The device's view of this memory, for kernel arguments (mapped and registered kinds).
    RawBuffer device_buffer() const;

private:
    std::shared_ptr<detail::HostState> state_;
};

} // namespace duet
