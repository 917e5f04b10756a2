// The core's private side of every public object: the backend handle it wraps and what keeps
// that handle valid (its device, and through the device its backend).
#pragma once

#include <duet/abi/backend.h>
#include <duet/detail/text.hpp>
#include <duet/device.hpp>
#include <duet/error.hpp>
#include <duet/host_memory.hpp>
#include <duet/launch_log.hpp>
#include <duet/program.hpp>
#include <duet/sequence.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <vector>

namespace duet::detail {

/// One loaded backend plugin and its function table.
class Backend {
public:
    /// `table` is the registry's checked copy: this core's size, the slots a smaller
    /// (older-minor) backend lacks null, every required slot filled.
    Backend(std::string name, std::string version, const duet_backend_v1& table);

    const std::string& name() const { return name_; }
    /// Driver and compiler versions, as the backend reports them; part of the program cache key.
    const std::string& version() const { return version_; }
    const duet_backend_v1& api() const { return api_; }

    /// Throws the typed exception for `status`, with the backend's detail of its last failure.
    [[noreturn]] void raise(duet_status status) const;
    void check(duet_status status) const
    {
        if (status != DUET_SUCCESS) {
            raise(status);
        }
    }
    /// Throws Unsupported naming `what` when the backend left that slot empty.
    template <class Slot> Slot require(Slot slot, const char* what) const
    {
        if (slot == nullptr) {
            unsupported(what);
        }
        return slot;
    }
    /// The backend's extension `name` (DUET_EXTENSION_*) as the `Function` it is; Unsupported
    /// naming `what` when the backend does not have it.
    template <class Function> Function extension(const char* name, const char* what) const
    {
        return reinterpret_cast<Function>(find_extension(name, what));
    }

private:
    [[noreturn]] void unsupported(const char* what) const;
    duet_function find_extension(const char* name, const char* what) const;

    std::string name_;
    std::string version_;
    duet_backend_v1 api_;
};

/// A core-side failure (bad argument, unknown name) in the same shape as a backend's.
template <class E> [[noreturn]] void fail(const std::string& backend, const char* call, std::string message)
{
    throw E(backend, call, 0, "", std::move(message));
}

/// The state behind a public handle; InvalidArgument when the handle is empty (default-constructed).
template <class State> const State& live(const std::shared_ptr<State>& state, const char* call, const char* type)
{
    if (!state) {
        fail<InvalidArgument>("duet", call, std::string("an empty ") + type + " (default-constructed, or moved from)");
    }
    return *state;
}

/// A built program's backend handle. It keeps the backend alive but not the device, whose
/// in-memory cache holds it: a reference back would keep both alive for ever, leaking the device
/// state of every registry but the global one.
struct BuiltProgram {
    std::shared_ptr<const Backend> backend;
    duet_program handle = nullptr;
    /// What the core has rather than the backend for a fatbin: the PTX it was compiled from and
    /// nvcc's options, shipped with it. Empty: ask the backend.
    std::string assembly;
    std::string compiled_with;
    /// A program loaded from the disk cache, whose binary may keep neither its assembly nor its
    /// options (a cubin): the source it was built from, built again (once) where they are asked for.
    struct Source {
        ProgramFormat format;
        std::string data;
        std::string options;
    };
    std::optional<Source> cached_from;
    mutable std::mutex rebuilt_mutex;
    mutable std::shared_ptr<const BuiltProgram> rebuilt;
    ~BuiltProgram();
};

struct QueueState;

/// A LaunchLog's launches, in the order the queues issued them.
struct LaunchLogState {
    std::mutex mutex;
    std::vector<LaunchRecord> launches;
};

struct EventState;
struct StagingRoute;

struct DeviceState {
    std::shared_ptr<const Backend> backend;
    duet_device handle = nullptr;
    std::uint32_t index = 0;
    DeviceProperties properties;
    std::vector<ProgramFormat> formats; ///< what the backend builds, in order of preference

    /// Programs built in this process, by cache key.
    mutable std::mutex programs_mutex;
    mutable std::map<std::string, std::shared_ptr<const BuiltProgram>> programs;

    const duet_backend_v1& api() const { return backend->api(); }
    void check(duet_status status) const { backend->check(status); }
    /// "opencl:1 (pthread-cpu)": the device as messages name it.
    std::string label() const { return backend->name() + ":" + std::to_string(index) + " (" + properties.name + ")"; }

    /// The queues alive on this device, so that freeing host memory can first wait for the work
    /// that may still read or write it. A queue is listed once created and delisted only after
    /// its work is done, just before its handle is released.
    void add_queue(const QueueState& queue) const;
    void remove_queue(const QueueState& queue) const;
    /// Waits for the work of every live queue, as cuMemFreeHost does; never throws (it runs in
    /// destructors), and a queue that fails to finish is skipped.
    void finish_queues() const noexcept;

    /// Counts `bytes` of a new buffer against the device's global memory, or throws OutOfMemory
    /// naming the request, the bytes in use and the limit. Some drivers (PoCL) abort the process
    /// when buffers that each fit exceed the memory together, so the core refuses first.
    void charge(std::size_t bytes, const char* call) const;
    void refund(std::size_t bytes) const noexcept;

    /// replay_choice()'s answer, once known in this process (replay_choice.cpp): held while it is
    /// read or measured, so that the device's queues wait for one measurement rather than each make
    /// their own.
    mutable std::mutex replay_mutex;
    mutable bool replay_known = false;
    mutable std::optional<ReplayChoice> replay;

    /// The staging queue and pinned chunks of staged copies from this device to `to`, made on
    /// first use and kept while this device lives (peer_copy.cpp).
    StagingRoute& staging_route(const DeviceState& to) const;

    /// While a LaunchLog of this device lives, every queue's launch goes to it (launch_log.cpp);
    /// otherwise a launch costs one relaxed load here, and no record is made.
    void log_launch(const Kernel& kernel, const Range& range, std::size_t dynamic_local, bool recorded) const
    {
        if (logging_.load(std::memory_order_relaxed)) [[unlikely]] {
            add_to_log({kernel, range, dynamic_local, recorded});
        }
    }
    /// The log's launches go to `log` from now on; InvalidArgument where one is kept already.
    void attach_launch_log(std::shared_ptr<LaunchLogState> log) const;
    void detach_launch_log() const noexcept;

    /// The flags of the BuildOptionsScope alive on this device, "" where none is (build_options_scope.cpp);
    /// Device::build appends them to every program's options.
    std::string scoped_build_flags() const;
    /// Whether a scope was attached: false, and nothing changed, where one is kept already.
    bool attach_build_flags(std::string flags) const;
    void detach_build_flags() const noexcept;

private:
    void add_to_log(const LaunchRecord& launch) const;

    mutable std::atomic<bool> logging_{false};
    mutable std::mutex log_mutex_;
    mutable std::shared_ptr<LaunchLogState> log_;
    mutable std::mutex build_flags_mutex_;
    mutable std::optional<std::string> build_flags_;
    mutable std::mutex queues_mutex_;
    mutable std::vector<const QueueState*> queues_;
    mutable std::mutex memory_mutex_;
    mutable std::uint64_t bytes_in_use_ = 0; ///< of the device's live duet buffers
    mutable std::mutex routes_mutex_;
    /// By the destination's handle, which lives as long as its backend; last, so destroyed first.
    mutable std::map<duet_device, std::shared_ptr<StagingRoute>> routes_;
};

struct BufferState {
    std::shared_ptr<const DeviceState> device;
    duet_buffer handle = nullptr;
    std::size_t bytes = 0;
    std::size_t charged = 0;             ///< bytes counted against the device's memory, refunded on release
    std::shared_ptr<const void> aliased; ///< host memory a device view aliases, kept alive by it

    /// Marks a copy that a queue of another device issued on this buffer, `done` recorded after
    /// it: releasing the buffer waits for it, since freeing memory waits only for the work of its
    /// own device. Marks already passed are dropped here.
    void add_foreign_copy(std::shared_ptr<const EventState> done) const;
    ~BufferState();

private:
    mutable std::mutex foreign_mutex_;
    mutable std::vector<std::shared_ptr<const EventState>> foreign_copies_;
};

/// One copy, fill or launch as the core's plain replay keeps it: it issues itself on a queue.
using RecordedCommand = std::function<duet_status(duet_queue)>;

struct SequenceState {
    std::shared_ptr<const DeviceState> device;
    duet_sequence handle = nullptr; ///< the backend's graph or command buffer; null for a plain replay
    ReplayMethod method = ReplayMethod::plain;
    std::string reason;                            ///< why the replay is plain
    std::size_t count = 0;                         ///< commands recorded
    std::vector<RecordedCommand> commands;         ///< for a plain replay
    std::vector<std::shared_ptr<const void>> kept; ///< the buffers and kernels the commands use
    /// A graph is not internally synchronised (cuGraphLaunch): one replay of `handle` at a time.
    mutable std::mutex replay_mutex;
    ~SequenceState();
};

struct QueueState {
    std::shared_ptr<const DeviceState> device;
    duet_queue handle = nullptr;
    /// The sequence that Queue::record_sequence is filling, null otherwise. Every command holds
    /// `recording_gate` shared from reading it until the backend has the command, and a recording
    /// starts and ends holding it alone, so that a command from any thread falls wholly inside a
    /// recording or wholly outside it; recorded commands reach the backend one at a time, under
    /// recording_mutex.
    mutable SequenceState* recording = nullptr;
    mutable std::shared_mutex recording_gate;
    mutable std::mutex recording_mutex;
    /// duet's own queue (replay_choice's probe): its launches go to no launch log, which holds the
    /// caller's.
    mutable bool unlogged = false;
    ~QueueState();
};

struct EventState {
    std::shared_ptr<const DeviceState> device;
    duet_event handle = nullptr;
    ~EventState();
};

/// Whether `to` can access `from`'s memory directly (the backend's device_peer_access); a device
/// reaches its own.
bool peer_access(const DeviceState& from, const DeviceState& to);

/// Enqueues a copy of `bytes` from `src` to `dst`, buffers of two devices, one of them the queue's,
/// through pinned host memory in chunks (peer_copy.cpp). Arguments are checked; the host waits
/// only where the backend's waits across devices do (OpenCL's).
void copy_staged(const QueueState& queue, const BufferState& dst, std::size_t dst_offset, const BufferState& src,
                 std::size_t src_offset, std::size_t bytes);

struct ProgramState {
    std::shared_ptr<const DeviceState> device;
    std::shared_ptr<const BuiltProgram> built;
    std::string name;
};

struct KernelState {
    std::shared_ptr<const ProgramState> program;
    duet_kernel handle = nullptr;
    std::string name;
    KernelProperties properties;
    ~KernelState();
};

struct HostState {
    std::shared_ptr<const DeviceState> device;
    duet_host_memory handle = nullptr; ///< null for pageable memory, which the core owns
    void* data = nullptr;
    std::size_t bytes = 0;
    HostMemoryKind kind = HostMemoryKind::pageable;
    ~HostState();
};

} // namespace duet::detail
